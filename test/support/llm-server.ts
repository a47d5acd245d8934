/**
 * The chat-completions test server over node-llama-cpp (test/llm-server/server.mjs) and the tiny
 * GGUF model `make models` fetches (models/manifest.json, smollm2-135m-instruct), in a process of its
 * own: node-llama-cpp is ESM and native, and lives in test/llm-server's own node_modules (`make llm-server`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
export const SMOLLM2 = join(ROOT, '.models', 'testdata', 'smollm2', 'SmolLM2-135M-Instruct.Q4_1.gguf');
const SERVER = join(ROOT, 'test', 'llm-server', 'server.mjs');

export interface LlmServer {
  url: string;
  close(): Promise<void>;
}

export async function startLlmServer(modelPath = SMOLLM2): Promise<LlmServer> {
  if (!existsSync(modelPath)) throw new Error(`${modelPath} is missing: run make models`);
  if (!existsSync(join(ROOT, 'test', 'llm-server', 'node_modules', 'node-llama-cpp')))
    throw new Error('node-llama-cpp is not installed in test/llm-server: run make llm-server');
  const child: ChildProcess = spawn(process.execPath, [SERVER, modelPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const end = Date.now() + 60_000;
  let url: string | undefined;
  while (!(url = /listening (\S+)/.exec(out)?.[1])) {
    if (child.exitCode !== null) throw new Error(`the LLM test server exited ${child.exitCode}: ${out}`);
    if (Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`the LLM test server did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

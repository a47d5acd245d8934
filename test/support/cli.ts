import { spawn, SpawnOptions } from 'node:child_process';
import { resolve } from 'node:path';

export const BIN = resolve(__dirname, '..', '..', 'bin', 'meeting-intel');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** Run the real CLI binary as a separate process. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  opts: SpawnOptions = {},
): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(BIN, args, { env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env }, ...opts });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.once('error', fail);
    child.once('exit', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout.trim().split('\n').pop() ?? '');
      } catch {
        try {
          json = JSON.parse(stderr.trim().split('\n').pop() ?? '');
        } catch {
          json = undefined;
        }
      }
      done({ code, stdout, stderr, json });
    });
  });
}

/**
 * The speech models of the embedded engine, read from folders that `make models` fills (or an
 * operator provides): each folder holds a model.json naming its kind, the languages it serves, the
 * longest segment it decodes well, the sherpa-onnx modelConfig (file names relative to the folder)
 * and the sha256 of its files. Nothing is downloaded here: a missing or altered file is an error that
 * names the file and the command that fetches it.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';

export const FETCH_COMMAND = 'make models';

const speechManifest = z.object({
  name: z.string().min(1),
  kind: z.string().min(1),
  /** ISO 639-1 codes the model transcribes; ["*"] for a multilingual model. */
  languages: z.array(z.string().min(1)).min(1),
  /** Longer speech is cut into pieces of at most this many seconds before decoding. */
  maxSegmentSeconds: z.number().positive().max(60).default(20),
  /**
   * Silence appended to each piece, as a share of its length (total at most 29.5 s): sherpa-onnx's
   * Whisper decoder stops after six tokens per second of input, too few for many languages.
   */
  trailingSilence: z.number().min(0).max(4).default(0),
  modelConfig: z.record(z.string(), z.unknown()),
  featureDim: z.number().int().positive().default(80),
  sha256: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)).default({}),
});

const vadManifest = z.object({
  name: z.string().min(1),
  kind: z.literal('silero-vad'),
  model: z.string().min(1),
  sha256: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)).default({}),
});

export type SpeechModel = z.infer<typeof speechManifest> & { dir: string };
export type VadModel = z.infer<typeof vadManifest> & { dir: string };

export class ModelFileError extends Error {}

/** The folder of the models: SPEECH_MODELS_DIR, relative paths from the working directory. */
export const modelsRoot = (dir: string) => (isAbsolute(dir) ? dir : resolve(process.cwd(), dir));

function readManifest<S extends z.ZodType>(dir: string, schema: S, what: string): z.output<S> {
  const file = join(dir, 'model.json');
  if (!existsSync(file))
    throw new ModelFileError(
      `${what}: ${file} is missing; run \`${FETCH_COMMAND}\` (or put the model's folder with its model.json there, see docs/speech.md)`,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ModelFileError(`${what}: ${file} is not JSON (${(e as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ModelFileError(`${what}: ${file}: ${issue.path.join('.') || 'manifest'}: ${issue.message}`);
  }
  return parsed.data;
}

/** Absolute paths for every string of modelConfig that names a file of the folder. */
export function resolveFiles(config: Record<string, unknown>, dir: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (typeof v === 'string' && v && existsSync(join(dir, v))) out[k] = join(dir, v);
    else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = resolveFiles(v as Record<string, unknown>, dir);
    else out[k] = v;
  }
  return out;
}

async function digestOf(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every file the manifest lists is there with its sha256. */
export async function verifyModelFiles(dir: string, digests: Record<string, string>): Promise<void> {
  for (const [name, expected] of Object.entries(digests)) {
    const path = join(dir, name);
    if (!existsSync(path)) throw new ModelFileError(`model file ${path} is missing; run \`${FETCH_COMMAND}\``);
    const got = await digestOf(path);
    if (got !== expected)
      throw new ModelFileError(
        `model file ${path} is altered (sha256 ${got.slice(0, 12)}…, model.json says ${expected.slice(0, 12)}…); run \`${FETCH_COMMAND}\` to fetch it again`,
      );
  }
}

/**
 * A speech model's model.json alone: what it is and the languages it serves, without its weights or
 * their digests (what the roles that take uploads read; they load no model).
 */
export function readSpeechManifest(root: string, name: string, setting = 'SPEECH_MODEL'): SpeechModel {
  const dir = join(modelsRoot(root), name);
  return { ...readManifest(dir, speechManifest, `speech model ${name} (${setting})`), dir };
}

export async function loadSpeechModel(root: string, name: string, setting = 'SPEECH_MODEL'): Promise<SpeechModel> {
  const m = readSpeechManifest(root, name, setting);
  await verifyModelFiles(m.dir, m.sha256);
  return m;
}

/** Silero VAD: from the operator's folder when it has one, else from the bundled .models. */
export async function loadVadModel(root: string): Promise<VadModel> {
  const own = join(modelsRoot(root), 'silero-vad');
  const dir = existsSync(join(own, 'model.json')) ? own : join(modelsRoot('.models'), 'silero-vad');
  const m = readManifest(dir, vadManifest, 'voice activity model silero-vad');
  await verifyModelFiles(dir, m.sha256);
  if (!existsSync(join(dir, m.model)))
    throw new ModelFileError(`model file ${join(dir, m.model)} is missing; run \`${FETCH_COMMAND}\``);
  return { ...m, dir };
}

/** Whether the model transcribes this language (ISO 639-1; undefined: not said). */
export function servesLanguage(model: Pick<SpeechModel, 'languages'>, language: string | undefined): boolean {
  if (!language) return true;
  return model.languages.includes('*') || model.languages.includes(language.toLowerCase());
}

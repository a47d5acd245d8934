/**
 * The stage: a directory per meeting on the worker's disk where the pipeline keeps what is too big
 * for workflow history (the media bytes, sentences, analytics, summary). Activities pass only small
 * references (types.ts) through Temporal.
 *
 * Activities of one run may land on different worker pods; a step that finds the stage empty (other
 * pod, restarted pod) re-derives what it needs (mediaFor in media.ts, sentencesFor in transcribe.ts,
 * analyticsFor in analyze.ts, summaryFor in summarize.ts), so the stage is a cache, never the
 * only copy. Files are written atomically (temp file + rename), so a killed worker leaves no torn file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_STAGE_ROOT = join(tmpdir(), 'meeting-intelligence-stage');

/** A stage left behind (a run that died with its pod) is removed after this long. */
export const STAGE_MAX_AGE_MS = 24 * 3600_000;

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class Stage {
  readonly dir: string;

  constructor(root: string, meetingId: string) {
    // Meeting ids are ULIDs; anything else must never become a path.
    if (!SAFE_ID.test(meetingId)) throw new Error(`not a meeting id: ${JSON.stringify(meetingId).slice(0, 80)}`);
    this.dir = join(root, meetingId);
  }

  private async writeAtomic(name: string, data: Buffer | string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const tmp = join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    await writeFile(tmp, data);
    await rename(tmp, join(this.dir, name));
  }

  private async readMaybe(name: string): Promise<Buffer | undefined> {
    try {
      return await readFile(join(this.dir, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  writeJson(name: string, value: unknown): Promise<void> {
    return this.writeAtomic(`${name}.json`, JSON.stringify(value));
  }

  async readJson<T>(name: string): Promise<T | undefined> {
    const raw = await this.readMaybe(`${name}.json`);
    return raw ? (JSON.parse(raw.toString('utf8')) as T) : undefined;
  }

  writeMedia(bytes: Buffer): Promise<void> {
    return this.writeAtomic('media.bin', bytes);
  }

  /** The staged media, only if it is exactly the file described (same size and SHA-256). */
  async readMedia(expect: { bytes: number; sha256: string }): Promise<Buffer | undefined> {
    const raw = await this.readMaybe('media.bin');
    if (!raw || raw.length !== expect.bytes || sha256(raw) !== expect.sha256) return undefined;
    return raw;
  }

  /** A fresh temporary path in the stage (created on demand); the caller renames or removes it. */
  async tempPath(name: string): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    return join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  }

  /** Move a finished temporary file into place under `name` (atomic). */
  async adopt(tmp: string, name: string): Promise<string> {
    const target = join(this.dir, name);
    await rename(tmp, target);
    return target;
  }

  /** The path of a staged file, when it is there. */
  async pathOf(name: string): Promise<string | undefined> {
    const path = join(this.dir, name);
    try {
      await stat(path);
      return path;
    } catch {
      return undefined;
    }
  }

  /** The staged media's path, only if it is exactly the file described (same size and SHA-256, read as a stream). */
  async mediaPath(expect: { bytes: number; sha256: string }): Promise<string | undefined> {
    const path = join(this.dir, 'media.bin');
    try {
      if ((await stat(path)).size !== expect.bytes) return undefined;
    } catch {
      return undefined;
    }
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    return hash.digest('hex') === expect.sha256 ? path : undefined;
  }

  remove(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}

export const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Remove stages older than maxAgeMs (runs that died with their worker); returns how many. */
export async function sweepStages(root: string, maxAgeMs = STAGE_MAX_AGE_MS, now = Date.now()): Promise<number> {
  let removed = 0;
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch {
    return 0;
  }
  for (const name of entries) {
    const dir = join(root, name);
    try {
      if (now - (await stat(dir)).mtimeMs > maxAgeMs) {
        await rm(dir, { recursive: true, force: true });
        removed++;
      }
    } catch {
      // Another worker sharing the directory removed it first.
    }
  }
  return removed;
}

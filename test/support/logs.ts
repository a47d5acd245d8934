/**
 * The service's log lines, captured instead of printed: for a test that causes a failure on purpose
 * and asserts that it was logged (and how). While capturing, the logger runs at `level` and its lines
 * go to `lines` (parsed JSON) rather than to stdout; stop() puts back the silence of test/support/setup.ts.
 */
import pino from 'pino';
import { logger } from '../../services/platform/logger';

export interface LogLine {
  level: string;
  msg: string;
  err?: { type?: string; message: string; stack?: string };
  [key: string]: unknown;
}

export interface CapturedLogs {
  lines: LogLine[];
  /** The lines at `level` whose message matches. */
  find(level: string, msg: RegExp): LogLine[];
  stop(): void;
}

type Stream = { write(line: string): unknown };

export function captureLogs(level: pino.LevelWithSilent = 'warn'): CapturedLogs {
  const stream = (logger as unknown as Record<symbol, Stream>)[pino.symbols.streamSym];
  const write = stream.write;
  const before = logger.level;
  const lines: LogLine[] = [];
  stream.write = (line: string) => lines.push(JSON.parse(line) as LogLine);
  logger.level = level;
  return {
    lines,
    find: (lvl, msg) => lines.filter((l) => l.level === lvl && msg.test(l.msg)),
    stop() {
      stream.write = write;
      logger.level = before;
    },
  };
}

/** Run `work` while capturing the lines at `level`: what it returned and what it logged. */
export async function whileCapturing<T>(
  level: pino.LevelWithSilent,
  work: () => Promise<T>,
): Promise<{ result: T; logs: CapturedLogs }> {
  const logs = captureLogs(level);
  try {
    return { result: await work(), logs };
  } finally {
    logs.stop();
  }
}

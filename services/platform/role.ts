import { ConfigError, loadConfig, Role } from './config';
import { onShutdownSignal } from './http';
import { configureLogger, logger } from './logger';
import type { Config } from './config';

export interface RunningRole {
  /** Where the role answers, for the log line and for `serve all`. */
  url?: string;
  close(): Promise<void>;
}

/**
 * Parse config for a role or exit 2 with every problem named; the logger then logs at its LOG_LEVEL,
 * naming the role the process runs as (MI_ROLE, set by the chart and by `serve`; else the config role).
 */
export function configOrExit(role: Role, env: NodeJS.ProcessEnv = process.env): Config {
  try {
    const config = loadConfig(env, role);
    configureLogger(config, env.MI_ROLE ?? role);
    return config;
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
}

/** Run one role as this process's main: start, log where, stop gracefully on SIGTERM/SIGINT. */
export function runRoleMain(role: Role, start: (config: Config) => Promise<RunningRole>): void {
  process.env.MI_ROLE = role;
  const config = configOrExit(role);
  start(config)
    .then((running) => {
      logger.info({ role, url: running.url }, `${role} ready`);
      onShutdownSignal(() => running.close());
    })
    .catch((e) => {
      logger.fatal({ err: e, role }, 'failed to start');
      process.exit(1);
    });
}

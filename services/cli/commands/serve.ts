import { onShutdownSignal } from '../../platform/http';
import { logger } from '../../platform/logger';
import { configOrExit, RunningRole } from '../../platform/role';
import type { Runtime } from '../../platform/runtime';
import { UsageError } from '../args';
import type { CommandContext } from '../context';

const ROLES = ['mcp', 'graphql', 'worker', 'all'] as const;

/** Run one role, or all three in one process sharing one pool (the laptop setup). */
export async function serve(ctx: CommandContext, role: string | undefined): Promise<void> {
  if (!role || !(ROLES as readonly string[]).includes(role))
    throw new UsageError(`serve takes one of ${ROLES.join(', ')}; got "${role ?? ''}"`);
  process.env.MI_ROLE = role;
  const config = configOrExit(role === 'all' ? 'worker' : (role as 'mcp' | 'graphql' | 'worker'));
  // Each role's code is loaded only when it runs: an mcp pod never loads Apollo, the worker, or the
  // Temporal SDK at all (its tools need only PostgreSQL).
  if (role === 'worker' || role === 'all')
    (
      require('../../platform/temporal-runtime') as typeof import('../../platform/temporal-runtime')
    ).installTemporalRuntime(config);
  const running: RunningRole[] = [];
  const rt: Runtime | undefined =
    role === 'all'
      ? (require('../../platform/runtime') as typeof import('../../platform/runtime')).createRuntime(config)
      : undefined;
  if (role === 'mcp' || role === 'all')
    running.push(await (require('../../mcp/main') as typeof import('../../mcp/main')).startMcpRole(config, rt));
  if (role === 'graphql' || role === 'all')
    running.push(
      await (require('../../graphql/main') as typeof import('../../graphql/main')).startGraphqlRole(config, rt),
    );
  if (role === 'worker' || role === 'all')
    running.push(
      await (require('../../worker/main') as typeof import('../../worker/main')).startWorkerRole(config, rt),
    );
  const urls = running.map((r) => r.url).filter(Boolean);
  logger.info({ role, urls }, 'ready');
  ctx.out.result({ role, urls, status: 'ready' }, `ready: ${urls.join('  ')}`);
  onShutdownSignal(async () => {
    // Stop taking work first (HTTP and polling), then close the shared pool.
    await Promise.all(running.map((r) => r.close()));
    await rt?.close();
  });
}

/**
 * meeting-intel: the admin CLI. Every command takes --json and then prints one JSON object.
 * Bad input exits 2 with a message naming the option and the rule; other failures exit 1.
 */
import { isServiceError } from '../platform/errors';
import { ConfigError } from '../platform/config';
import { parse, Parsed, UsageError } from './args';
import {
  apikeyCreate,
  apikeyList,
  apikeyRevoke,
  apikeyLimit,
  teamCreate,
  teamFlags,
  userCreate,
  userDeactivate,
  userEndSignins,
  userReactivate,
  userSignins,
} from './commands/admin';
import { migrate } from './commands/migrate';
import { SchemaError } from '../platform/schema';
import { auditReads } from './commands/audit';
import { serve } from './commands/serve';
import { searchReindex, searchStatus } from './commands/search';
import { CommandContext } from './context';
import {
  CliFailure,
  databaseFailure,
  isTemporalTransportError,
  temporalFailure,
  withinDeadline,
  withoutSql,
} from './failures';
import { output } from './output';

export const USAGE = `meeting-intel <command> [options] [--json]

  migrate [up|down|status]                 apply, revert the last, or list migrations
  migrate status --release V               also: would release V (an older one, e.g. to roll back to) run on this schema
  team create --name N --tier T            T: free | pro | business | enterprise
  team flags --team ID --enable search,fetch [--disable ...]
                                           turn experimental tools on or off for a team
  user create --team ID --email E --name N [--role member|admin|super_admin]
  user deactivate --email E                revokes their keys, ends their sign-ins; no sign-in until reactivated
  user reactivate --email E
  user signins --email E                   live OAuth sign-ins and page sessions
  user end-signins --email E [--id ID]     end one sign-in, or all of them
  apikey create --email E [--name LABEL] [--scopes meetings:read,meetings:write,admin] [--expires 90d|2027-01-31]
                                           prints the key once (default: every scope its user has; admin for team admins)
  apikey list [--email E]
  apikey revoke --prefix P                 also ends the OAuth sign-ins and page sessions made with it
  apikey limit --prefix P --per-minute N|default   the key's own call allowance (RATE_LIMIT_PER_MINUTE by default)
  seed demo                                the demo team, people, channels and meetings (idempotent)
  audit reads --team ID [--user ID|EMAIL] [--meeting ID] [--since ISO|7d] [--limit N] [--cursor C]
                                           who read which meeting, newest first (--cursor pages on)
  search status                            questions by meaning or by words, and the embedding backfill's progress
  search reindex [--batch N] [--detach|--direct]
                                           index the words of meetings uploaded with a language before 0.2.0
                                           in that language: the workers' re-index workflow, started or joined
                                           and followed (--detach: return once it runs); --direct: in this
                                           process, without Temporal (resumable; progress on stderr)
  serve mcp|graphql|worker|all             run one role, or all three in one process

Configuration comes from environment variables (see docs/configuration.md); DATABASE_URL is always required.`;

type Handler = {
  options: Record<string, { type: 'string' | 'boolean' }>;
  run: (ctx: CommandContext, p: Parsed) => Promise<void>;
};

const COMMANDS: Record<string, Handler> = {
  migrate: {
    options: { release: { type: 'string' } },
    run: (ctx, p) => migrate(ctx, p.positionals[0], p.values.release as string | undefined),
  },
  'team create': { options: { name: { type: 'string' }, tier: { type: 'string' } }, run: teamCreate },
  'team flags': {
    options: { team: { type: 'string' }, enable: { type: 'string' }, disable: { type: 'string' } },
    run: teamFlags,
  },
  'user create': {
    options: {
      team: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
    },
    run: userCreate,
  },
  'user deactivate': { options: { email: { type: 'string' } }, run: userDeactivate },
  'user reactivate': { options: { email: { type: 'string' } }, run: userReactivate },
  'user signins': { options: { email: { type: 'string' } }, run: userSignins },
  'user end-signins': { options: { email: { type: 'string' }, id: { type: 'string' } }, run: userEndSignins },
  'apikey create': {
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      expires: { type: 'string' },
    },
    run: apikeyCreate,
  },
  'apikey list': { options: { email: { type: 'string' } }, run: apikeyList },
  'apikey revoke': { options: { prefix: { type: 'string' } }, run: apikeyRevoke },
  'apikey limit': { options: { prefix: { type: 'string' }, 'per-minute': { type: 'string' } }, run: apikeyLimit },
  'audit reads': {
    options: {
      team: { type: 'string' },
      user: { type: 'string' },
      meeting: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
    },
    run: auditReads,
  },
  'seed demo': {
    options: {},
    run: (ctx, p) => (require('./commands/seed') as typeof import('./commands/seed')).seedDemoCommand(ctx, p),
  },
  'search status': { options: {}, run: searchStatus },
  'search reindex': {
    options: { batch: { type: 'string' }, detach: { type: 'boolean' }, direct: { type: 'boolean' } },
    run: searchReindex,
  },
  serve: { options: {}, run: (ctx, p) => serve(ctx, p.positionals[0]) },
};

function findCommand(argv: string[]): [string, string[]] {
  const two = argv.slice(0, 2).join(' ');
  if (COMMANDS[two]) return [two, argv.slice(2)];
  if (COMMANDS[argv[0]]) return [argv[0], argv.slice(1)];
  const hint = argv.length ? `unknown command "${argv.slice(0, 2).join(' ')}"` : 'no command given';
  throw new UsageError(`${hint}\n\n${USAGE}`);
}

export async function main(argv: string[]): Promise<void> {
  const json = argv.includes('--json');
  const ctx = new CommandContext(output(json));
  let code = 0;
  try {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    const [name, rest] = findCommand(argv);
    const handler = COMMANDS[name];
    const parsed = parse(rest, handler.options);
    if (parsed.values.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    await handler.run(ctx, parsed);
    if (name === 'serve') return; // keeps running until a signal
  } catch (e) {
    code = report(explain(e, ctx), json);
  }
  await withinDeadline(ctx.close(), 5000, 'closing').catch(() => {});
  process.exitCode = code;
  // A command has ended: nothing left open (a connection still retrying, a socket) may keep the
  // process alive. The timer does not itself hold the process; it fires only if something else does.
  setTimeout(() => process.exit(code), 1000).unref();
}

/** Database and Temporal failures as messages naming the variable to fix. */
function explain(e: unknown, ctx: CommandContext): unknown {
  if (e instanceof UsageError || e instanceof ConfigError || isServiceError(e) || e instanceof CliFailure) return e;
  if (e instanceof SchemaError) return new CliFailure(e.code, e.message);
  const where = ctx.where();
  const db = databaseFailure(e, where.databaseUrl);
  if (db) return db;
  if (isTemporalTransportError(e)) return temporalFailure(e, where.temporalAddress);
  return e;
}

function report(e: unknown, json: boolean): number {
  let code = 1;
  let error: Record<string, unknown>;
  if (e instanceof CliFailure) {
    error = { code: e.code, message: e.message };
  } else if (e instanceof UsageError) {
    code = 2;
    error = { code: 'usage', message: e.message };
  } else if (e instanceof ConfigError) {
    code = 2;
    error = { code: 'config', message: e.message };
  } else if (isServiceError(e)) {
    code = ['invalid_arguments', 'args_required', 'object_not_found'].includes(e.code) ? 2 : 1;
    error = e.toJSON();
  } else {
    error = { code: 'internal_error', message: withoutSql(e instanceof Error ? e.message : String(e)) };
  }
  process.stderr.write(json ? `${JSON.stringify({ error })}\n` : `error: ${error.message}\n`);
  return code;
}

if (require.main === module) void main(process.argv.slice(2));

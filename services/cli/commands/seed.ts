import type { Knex } from 'knex';
import { createApiKey } from '../../core/people';
import type { Config } from '../../platform/config';
import { importDemoMeetings } from '../demo/meetings';
import { seedPeople } from '../demo/people';
import type { Parsed } from '../args';
import type { CommandContext } from '../context';

export interface SeedResult {
  teamId: string;
  adminEmail: string;
  users: number;
  meetings: { imported: number; total: number };
  /** A key made by this run, when the super admin had no working demo key; else null. */
  apiKey: string | null;
  newKey(): Promise<string>;
}

/** The demo team, its people, groups, channels and meetings. Idempotent: a second run changes nothing. */
export async function seedDemo(db: Knex, config: Config, log: (s: string) => void = () => {}): Promise<SeedResult> {
  const people = await seedPeople(db);
  const meetings = await importDemoMeetings(db, config, people, log);
  const admin = people.usersByEmail.get(people.superAdminEmail)!;
  const newKey = async () => (await createApiKey(db, { email: people.superAdminEmail, name: 'demo' })).key;
  const hasKey = await db('api_keys').where({ user_id: admin.id, name: 'demo' }).whereNull('revoked_at').first('id');
  return {
    teamId: people.teamId,
    adminEmail: people.superAdminEmail,
    users: people.usersByEmail.size,
    meetings,
    apiKey: hasKey ? null : await newKey(),
    newKey,
  };
}

export async function seedDemoCommand(ctx: CommandContext, p: Parsed): Promise<void> {
  if (p.positionals.length) throw new Error(`seed demo takes no arguments; got ${p.positionals.join(' ')}`);
  const r = await seedDemo(ctx.db(), ctx.config(), (s) => !ctx.out.json && process.stderr.write(`${s}\n`));
  ctx.out.result(
    { team_id: r.teamId, admin_email: r.adminEmail, users: r.users, meetings: r.meetings, api_key: r.apiKey },
    [
      `demo team ${r.teamId}: ${r.users} people, ${r.meetings.total} meetings (${r.meetings.imported} imported now)`,
      r.apiKey
        ? `API key for ${r.adminEmail} (shown once):\n${r.apiKey}`
        : `a demo API key already exists; make another with: meeting-intel apikey create --email ${r.adminEmail}`,
    ].join('\n'),
  );
}

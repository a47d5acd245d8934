/**
 * The demo team's people, groups and channels from meetings/team.json (beside this module). Every write is
 * an upsert keyed by something stable (email, handle, title), so seeding twice changes nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { newId } from '../../core/input';

/** The demo meetings' recordings, manifest and team: services/cli/demo/meetings (`npm run build` copies them beside the compiled code). */
export const FIXTURES_DIR = join(__dirname, 'meetings');
export const DEMO_TEAM_ID = 'demo-ledgerly';

interface TeamFile {
  team: { name: string; tier: string };
  users: { name: string; email: string; role: string }[];
  groups: { name: string; handle: string; members: { email: string; role: string }[] }[];
  channels: { title: string; is_private?: boolean; members: (string | { email: string; role?: string })[] }[];
  guests?: { name: string; email: string; company: string | null }[];
}

export function readTeamFile(): TeamFile {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, 'team.json'), 'utf8'));
}

export interface DemoPeople {
  teamId: string;
  usersByEmail: Map<string, { id: string; name: string; role: string }>;
  channelsByTitle: Map<string, string>;
  superAdminEmail: string;
}

export async function seedPeople(db: Knex): Promise<DemoPeople> {
  const file = readTeamFile();
  return db.transaction(async (tx) => {
    await tx('teams')
      .insert({ id: DEMO_TEAM_ID, name: file.team.name, tier: file.team.tier, feature_flags: ['fetch', 'search'] })
      .onConflict('id')
      .merge(['tier', 'feature_flags']);

    const usersByEmail = new Map<string, { id: string; name: string; role: string }>();
    for (const u of file.users) {
      const email = u.email.toLowerCase();
      const existing = await tx('users').whereRaw('lower(email) = ?', [email]).first('id', 'team_id');
      if (existing && existing.team_id !== DEMO_TEAM_ID)
        throw new Error(`${email} already belongs to another team; the demo cannot reuse it`);
      const id = existing?.id ?? newId();
      if (!existing)
        await tx('users').insert({
          id,
          team_id: DEMO_TEAM_ID,
          email,
          name: u.name,
          role: u.role,
          integrations: JSON.stringify(['zoom', 'google_calendar']),
        });
      usersByEmail.set(email, { id, name: u.name, role: u.role });
    }

    for (const g of file.groups) {
      const row = await tx('user_groups').where({ team_id: DEMO_TEAM_ID, handle: g.handle }).first('id');
      const id = row?.id ?? newId();
      if (!row) await tx('user_groups').insert({ id, team_id: DEMO_TEAM_ID, name: g.name, handle: g.handle });
      for (const m of g.members) {
        const user = usersByEmail.get(m.email.toLowerCase());
        if (user)
          await tx('user_group_members')
            .insert({ group_id: id, user_id: user.id, role: m.role })
            .onConflict(['group_id', 'user_id'])
            .ignore();
      }
    }

    const channelsByTitle = new Map<string, string>();
    for (const c of file.channels) {
      const row = await tx('channels').where({ team_id: DEMO_TEAM_ID, title: c.title }).first('id');
      const id = row?.id ?? newId();
      if (!row)
        await tx('channels').insert({ id, team_id: DEMO_TEAM_ID, title: c.title, is_private: Boolean(c.is_private) });
      for (const m of c.members) {
        const email = typeof m === 'string' ? m : m.email;
        const role = typeof m === 'string' ? 'member' : (m.role ?? 'member');
        const user = usersByEmail.get(email.toLowerCase());
        if (user)
          await tx('channel_members')
            .insert({ channel_id: id, user_id: user.id, role })
            .onConflict(['channel_id', 'user_id'])
            .ignore();
      }
      channelsByTitle.set(c.title, id);
    }
    const superAdmin = file.users.find((u) => u.role === 'super_admin') ?? file.users[0];
    return { teamId: DEMO_TEAM_ID, usersByEmail, channelsByTitle, superAdminEmail: superAdmin.email.toLowerCase() };
  });
}

/**
 * A team's voiceprints switch. A voiceprint is biometric data, so a team keeps none until an admin
 * turns them on; turning them off deletes every speaker profile and every meeting voice of the team in
 * the same transaction as the switch, so "off" always means "nothing kept". Both are audited.
 */
import type { Knex } from 'knex';
import { requireVoiceprintAdmin, type Principal } from '../access';
import { audit } from '../audit';
import { invalid } from '../../platform/errors';

export interface VoiceprintSetting {
  team_id: string;
  enabled: boolean;
  /** ISO 8601 when an admin turned them on; null while off. */
  enabled_at: string | null;
  /** The user id of the admin who turned them on; null while off. */
  enabled_by: string | null;
}

export interface VoiceprintChange extends VoiceprintSetting {
  /** Turning off: how many speaker profiles and meeting voices were deleted (0 when turning on). */
  profiles_deleted: number;
  voices_deleted: number;
}

const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString());

function settingOf(
  teamId: string,
  row:
    | { voiceprints_enabled?: boolean; voiceprints_enabled_at?: Date | null; voiceprints_enabled_by?: string | null }
    | undefined,
): VoiceprintSetting {
  const enabled = row?.voiceprints_enabled === true;
  return {
    team_id: teamId,
    enabled,
    enabled_at: enabled ? iso(row?.voiceprints_enabled_at ?? null) : null,
    enabled_by: enabled ? (row?.voiceprints_enabled_by ?? null) : null,
  };
}

const COLUMNS = ['voiceprints_enabled', 'voiceprints_enabled_at', 'voiceprints_enabled_by'];

/** Whether the caller's team keeps voiceprints: any member of the team may ask. */
export async function getVoiceprints(db: Knex, p: Principal): Promise<VoiceprintSetting> {
  return settingOf(p.teamId, await db('teams').where({ id: p.teamId }).first(COLUMNS));
}

/** Whether a team keeps voiceprints, read in the caller's transaction (locked against the switch when `lock`). */
export async function voiceprintsEnabled(trx: Knex.Transaction, teamId: string, lock = true): Promise<boolean> {
  const q = trx('teams').where({ id: teamId });
  const row = await (lock ? q.forShare() : q).first('voiceprints_enabled');
  return row?.voiceprints_enabled === true;
}

/**
 * Turn voiceprints on or off for the caller's team: team admins. Off deletes every profile and
 * meeting voice of the team. Setting the state the team already has changes nothing and is not audited.
 */
export async function setVoiceprints(db: Knex, p: Principal, enabled: unknown): Promise<VoiceprintChange> {
  requireVoiceprintAdmin(p, 'Turning voiceprints on or off');
  if (typeof enabled !== 'boolean') throw invalid('enabled', 'true or false', 'enabled must be true or false');
  return db.transaction(async (trx) => {
    const before = await trx('teams').where({ id: p.teamId }).forUpdate().first(COLUMNS);
    if ((before?.voiceprints_enabled === true) === enabled)
      return { ...settingOf(p.teamId, before), profiles_deleted: 0, voices_deleted: 0 };
    let profiles = 0;
    let voices = 0;
    if (enabled) {
      await trx('teams')
        .where({ id: p.teamId })
        .update({ voiceprints_enabled: true, voiceprints_enabled_at: trx.fn.now(), voiceprints_enabled_by: p.userId });
    } else {
      voices = await trx('meeting_voices').where({ team_id: p.teamId }).delete();
      profiles = await trx('speaker_profiles').where({ team_id: p.teamId }).delete();
      await trx('teams')
        .where({ id: p.teamId })
        .update({ voiceprints_enabled: false, voiceprints_enabled_at: null, voiceprints_enabled_by: null });
    }
    await audit(
      trx,
      p,
      enabled ? 'team.voiceprints_enabled' : 'team.voiceprints_disabled',
      { type: 'team', id: p.teamId, teamId: p.teamId },
      enabled ? {} : { profiles_deleted: profiles, voices_deleted: voices },
    );
    const after = await trx('teams').where({ id: p.teamId }).first(COLUMNS);
    return { ...settingOf(p.teamId, after), profiles_deleted: profiles, voices_deleted: voices };
  });
}

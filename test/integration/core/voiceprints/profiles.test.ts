/**
 * Voiceprints' rules without the speech pipeline: the team switch, enrolment by naming a speaker,
 * matching a stitched meeting's voices, merge and forget, who may do each (over the SDK's MCP client and
 * HTTP GraphQL), and that no answer carries an embedding. Voices here are made-up vectors; the
 * recognition of real voices through an upload is recognition.test.ts.
 */
import { renameSpeaker, SPEAKER_NAME_MAX } from '../../../../services/core/meetings';
import { deleteExpiredMeetings } from '../../../../services/core/retention';
import { recogniseMeetingVoices } from '../../../../services/core/voiceprints';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql } from '../../../support/graphql';
import { McpHarness, startMcp } from '../../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../../support/testDb';

const DIM = 192;

/**
 * A made-up voice pointing mostly along axis `k`, with a little of axis k+1 (`tilt`), and a small
 * figure in the last axis that no answer could contain by chance.
 */
function voice(k: number, tilt = 0): number[] {
  const v = new Array<number>(DIM).fill(0);
  v[k] = 1;
  v[k + 1] = tilt;
  v[DIM - 1] = 0.0731;
  return v;
}

const PROFILES = /* GraphQL */ `
  query ($limit: Int) {
    speakerProfiles(limit: $limit) {
      voiceprints_enabled
      total
      profiles {
        id
        name
        email
        voices
        meetings
      }
    }
  }
`;

describe('voiceprints: switch, profiles and who may', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let gql: GraphqlHarness;
  let admin: TestUser;
  let member: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada' });
    member = await makeUser(t.db, team, { name: 'Olivia' });
    outsider = await makeUser(t.db, other, { role: 'admin' });
    mcp = await startMcp(t.db);
    gql = await startGraphql(t.db);
  });
  afterAll(async () => {
    await mcp?.close();
    await gql?.close();
    await t?.drop();
  });

  /** A completed meeting of Olivia's with speakers "Speaker 1" and "Speaker 2" and their kept voices. */
  async function meetingWithVoices(voices: Record<string, number[]>) {
    const m = await makeMeeting(t.db, {
      organizer: member,
      sentences: Object.keys(voices).map((speaker, i) => ({
        speaker,
        text: `Line ${i}.`,
        start: i * 2,
        end: i * 2 + 1,
      })),
    });
    await t.db('meeting_voices').insert(
      Object.entries(voices).map(([speaker, embedding]) => ({
        meeting_id: m.id,
        team_id: member.teamId,
        speaker,
        embedding,
      })),
    );
    return m;
  }

  const on = async (enabled: boolean) => {
    const res = await mcp.call(admin.key, 'svc_set_voiceprints', { enabled });
    expect(res.isError).toBe(false);
    return res.data;
  };

  it('is off by default; only a team admin turns it on, and it is audited', async () => {
    const listed = await mcp.call(member.key, 'svc_list_speaker_profiles', {});
    expect(listed.data).toMatchObject({ voiceprints_enabled: false, profiles: [], total: 0 });
    const refused = await mcp.call(member.key, 'svc_set_voiceprints', { enabled: true });
    expect(refused.data.error).toMatchObject({ code: 'require_elevated_privilege' });
    const viaGraphql = await gql.request(member.key, 'mutation { setVoiceprints(enabled: true) { enabled } }');
    expect(viaGraphql.body.errors?.[0].extensions?.code).toBe('require_elevated_privilege');

    expect(await on(true)).toMatchObject({ enabled: true, enabled_by: admin.id });
    const read = await gql.request(member.key, '{ voiceprints { enabled enabled_by } }');
    expect(read.body.data?.voiceprints).toEqual({ enabled: true, enabled_by: admin.id });
    const audited = await t.db('audit_log').where({ action: 'team.voiceprints_enabled', actor_user_id: admin.id });
    expect(audited).toHaveLength(1);
  });

  it('enrols a voice when its speaker is named, and keeps nothing new when voiceprints are off', async () => {
    await on(false);
    const off = await meetingWithVoices({ 'Speaker 1': voice(0), 'Speaker 2': voice(10) });
    await renameSpeaker(t.db, member.principal, { meetingId: off.id, from: 'Speaker 1', to: 'Priya Shah' });
    expect(await t.db('speaker_profiles').count({ n: '*' })).toEqual([{ n: '0' }]);
    expect(await t.db('meeting_voices').where({ meeting_id: off.id, speaker: 'Speaker 1' })).toHaveLength(1);

    await on(true);
    const m = await meetingWithVoices({ 'Speaker 1': voice(0), 'Speaker 2': voice(10) });
    await renameSpeaker(t.db, member.principal, {
      meetingId: m.id,
      from: 'Speaker 1',
      to: 'Priya Shah',
      email: 'priya@example.test',
    });
    const row = await t.db('meeting_voices').where({ meeting_id: m.id, speaker: 'Priya Shah' }).first();
    expect(row).toMatchObject({ inferred: false, confidence: null });
    const profile = await t.db('speaker_profiles').where({ id: row.profile_id }).first();
    expect(profile).toMatchObject({ name: 'Priya Shah', email: 'priya@example.test', voices: 1 });
    const enrolled = await t.db('audit_log').where({ action: 'speaker_profile.enrolled', target_id: profile.id });
    expect(enrolled).toHaveLength(1);

    // A second meeting's voice named the same (any case) joins the profile; the email stays.
    const again = await meetingWithVoices({ 'Speaker 1': voice(0, 0.1), 'Speaker 2': voice(20) });
    await renameSpeaker(t.db, member.principal, { meetingId: again.id, from: 'Speaker 1', to: 'priya shah' });
    expect(await t.db('speaker_profiles').where({ id: profile.id }).first()).toMatchObject({
      voices: 2,
      email: 'priya@example.test',
    });
    // Named again as someone else (a correction): the voice leaves Priya's profile for the new one.
    await renameSpeaker(t.db, member.principal, { meetingId: again.id, from: 'priya shah', to: 'Pat Lee' });
    expect((await t.db('speaker_profiles').where({ id: profile.id }).first()).voices).toBe(1);
    expect(await t.db('speaker_profiles').where({ name: 'Pat Lee' }).first()).toMatchObject({ voices: 1 });
  });

  it('names a stitched meeting speaker after the profile its voice matches, one to one, audited', async () => {
    const m = await makeMeeting(t.db, { organizer: member, status: 'processing', sentences: [] });
    const inferred = await recogniseMeetingVoices(t.db, m.id, [
      { speaker: 'Speaker 1', embedding: voice(30) },
      { speaker: 'Speaker 2', embedding: voice(0, -0.2) },
    ]);
    expect(inferred).toEqual([
      { speaker: 'Priya Shah', label: 'Speaker 2', email: 'priya@example.test', confidence: expect.any(Number) },
    ]);
    expect(inferred[0].confidence).toBeGreaterThanOrEqual(0.9);
    const rows = await t.db('meeting_voices').where({ meeting_id: m.id }).orderBy('speaker');
    expect(rows.map((r) => [r.speaker, r.inferred, r.profile_id !== null])).toEqual([
      ['Priya Shah', true, true],
      ['Speaker 1', false, false],
    ]);
    expect(await t.db('audit_log').where({ action: 'speaker_profile.matched', actor_user_id: null })).toHaveLength(1);
    // A retried step replaces its rows rather than adding to them.
    await recogniseMeetingVoices(t.db, m.id, [{ speaker: 'Speaker 1', embedding: voice(30) }]);
    expect(await t.db('meeting_voices').where({ meeting_id: m.id })).toHaveLength(1);
  });

  it('lets members list profiles without embeddings, admins alone merge and forget, and no other team see them', async () => {
    const listed = await mcp.call(member.key, 'svc_list_speaker_profiles', {});
    expect(listed.isError).toBe(false);
    expect(listed.data.profiles.map((x: { name: string }) => x.name)).toEqual(['Pat Lee', 'Priya Shah']);
    const stored = (await t.db('speaker_profiles').first('embedding')).embedding as number[];
    const figure = String(stored[DIM - 1]).slice(0, 6);
    expect(figure).toMatch(/^0\.07\d\d$/);
    for (const text of [listed.text, JSON.stringify((await gql.request(member.key, PROFILES, {})).body)]) {
      expect(text).not.toMatch(/embedding/i);
      expect(text).not.toContain(figure);
    }
    const [pat, priya] = listed.data.profiles as { id: string }[];

    const theirs = await gql.request(outsider.key, PROFILES, {});
    expect(theirs.body.data?.speakerProfiles).toEqual({ voiceprints_enabled: false, total: 0, profiles: [] });
    const notTheirs = await mcp.call(outsider.key, 'svc_forget_speaker_profile', { id: priya.id });
    expect(notTheirs.data.error).toMatchObject({ code: 'object_not_found' });
    for (const [tool, args] of [
      ['svc_merge_speaker_profiles', { from: pat.id, into: priya.id }],
      ['svc_forget_speaker_profile', { id: priya.id }],
    ] as const) {
      const res = await mcp.call(member.key, tool, args);
      expect([tool, res.data.error?.code]).toEqual([tool, 'require_elevated_privilege']);
    }
    const same = await mcp.call(admin.key, 'svc_merge_speaker_profiles', { from: pat.id, into: pat.id });
    expect(same.data.error).toMatchObject({ code: 'invalid_arguments', field: 'into' });

    const merged = await mcp.call(admin.key, 'svc_merge_speaker_profiles', { from: pat.id, into: priya.id });
    expect(merged.isError).toBe(false);
    expect(merged.data).toMatchObject({
      profile: { id: priya.id, voices: 2 },
      merged: { id: pat.id, name: 'Pat Lee' },
    });
    expect(await t.db('meeting_voices').where({ profile_id: pat.id })).toHaveLength(0);

    const voicesOfPriya = (await t.db('meeting_voices').where({ profile_id: priya.id })).length;
    expect(voicesOfPriya).toBeGreaterThan(0);
    const forgot = await mcp.call(admin.key, 'svc_forget_speaker_profile', { id: priya.id });
    expect(forgot.data).toMatchObject({ success: true, name: 'Priya Shah', voices_deleted: voicesOfPriya });
    expect(await t.db('speaker_profiles').where({ id: priya.id })).toHaveLength(0);
    expect(await t.db('meeting_voices').where({ profile_id: priya.id })).toHaveLength(0);
    expect(
      (await t.db('audit_log').whereIn('action', ['speaker_profile.merged', 'speaker_profile.forgotten'])).length,
    ).toBe(2);
  });

  it('enrols a name of exactly SPEAKER_NAME_MAX characters and refuses one longer; pages profiles 1 to 200', async () => {
    const m = await meetingWithVoices({ 'Speaker 1': voice(40), 'Speaker 2': voice(50) });
    const longest = 'n'.repeat(SPEAKER_NAME_MAX);
    await expect(
      renameSpeaker(t.db, member.principal, { meetingId: m.id, from: 'Speaker 2', to: `${longest}n` }),
    ).rejects.toMatchObject({ code: 'invalid_arguments', details: { field: 'to' } });
    await renameSpeaker(t.db, member.principal, { meetingId: m.id, from: 'Speaker 1', to: longest });
    expect(await t.db('speaker_profiles').where({ name: longest })).toHaveLength(1);

    for (const [limit, ok] of [
      [0, false],
      [1, true],
      [200, true],
      [201, false],
    ] as const) {
      const res = await mcp.call(member.key, 'svc_list_speaker_profiles', { limit });
      expect([limit, res.isError]).toEqual([limit, !ok]);
      if (ok) expect(res.data.profiles.length).toBeLessThanOrEqual(limit);
      const viaGraphql = await gql.request(member.key, PROFILES, { limit });
      expect([limit, viaGraphql.body.errors?.[0].extensions?.field ?? null]).toEqual([limit, ok ? null : 'limit']);
    }
  });

  it('deletes every profile and meeting voice of the team when turned off, and keeps none after', async () => {
    expect(Number((await t.db('speaker_profiles').count({ n: '*' }))[0].n)).toBeGreaterThan(0);
    const before = Number((await t.db('meeting_voices').where({ team_id: member.teamId }).count({ n: '*' }))[0].n);
    expect(before).toBeGreaterThan(0);
    const off = await on(false);
    expect(off).toMatchObject({ enabled: false, enabled_at: null, voices_deleted: before });
    expect(off.profiles_deleted).toBeGreaterThan(0);
    expect(await t.db('speaker_profiles').where({ team_id: member.teamId })).toHaveLength(0);
    expect(await t.db('meeting_voices').where({ team_id: member.teamId })).toHaveLength(0);
    const m = await makeMeeting(t.db, { organizer: member, status: 'processing', sentences: [] });
    expect(await recogniseMeetingVoices(t.db, m.id, [{ speaker: 'Speaker 1', embedding: voice(0) }])).toEqual([]);
    expect(await t.db('meeting_voices').where({ meeting_id: m.id })).toHaveLength(0);
    const audited = await t
      .db('audit_log')
      .where({ action: 'team.voiceprints_disabled' })
      .orderBy('id', 'desc')
      .first();
    expect(audited.details).toMatchObject({ voices_deleted: before });
  });
  it("lets retention delete an expired meeting's voices with it", async () => {
    expect((await mcp.call(outsider.key, 'svc_set_voiceprints', { enabled: true })).isError).toBe(false);
    const old = await makeMeeting(t.db, { organizer: outsider, date: '2026-01-05T10:00:00Z', status: 'processing' });
    await recogniseMeetingVoices(t.db, old.id, [{ speaker: 'Speaker 1', embedding: voice(60) }]);
    expect(await t.db('meeting_voices').where({ meeting_id: old.id })).toHaveLength(1);
    await t.db('teams').where({ id: outsider.teamId }).update({ retention_days: 30 });
    expect(await deleteExpiredMeetings(t.db, new Date('2026-03-01T00:00:00Z'), 10)).toBe(1);
    expect(await t.db('meeting_voices').where({ meeting_id: old.id })).toHaveLength(0);
  });
});

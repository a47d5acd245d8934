/**
 * The demo meetings go through the real pipeline: each caption fixture is uploaded with uploadAudio
 * (as its organizer, with a stable client_reference_id, so a second seed is a replay) and transcribed
 * by TranscriptionWorkflow on a task queue of the seed's own, served by a worker inside this process
 * that fetches the files from a loopback server. Then privacy, channel and shares from the manifest.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { newId } from '../../core/input';
import type { Principal } from '../../core/access';
import { uploadAudio } from '../../core/uploads';
import type { Config } from '../../platform/config';
import { connectTemporal } from '../temporal';
import { FIXTURES_DIR, DemoPeople, readTeamFile } from './people';
import { temporalWorkflows } from '../../../workflows/client';
import { transcriptionWorkflowId } from '../../../workflows/contracts';

interface ManifestMeeting {
  file: string;
  title: string;
  date: string;
  organizer_email: string;
  participants: { name: string; email: string }[];
  privacy: string;
  channel?: string;
}

export function readManifest(): ManifestMeeting[] {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, 'manifest.json'), 'utf8')).meetings;
}

const referenceOf = (m: ManifestMeeting) => `demo:${m.file}`;

function serveFixtures(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const name = basename(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const type = name.endsWith('.vtt') ? 'text/vtt' : name.endsWith('.srt') ? 'application/x-subrip' : undefined;
    if (!type) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': type });
    createReadStream(join(FIXTURES_DIR, name))
      .on('error', () => res.destroy())
      .pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address() as { port: number };
      resolve({ server, base: `http://127.0.0.1:${a.port}` });
    }),
  );
}

async function principalOf(db: Knex, email: string): Promise<Principal> {
  const u = await db('users as u')
    .join('teams as t', 't.id', 'u.team_id')
    .whereRaw('lower(u.email) = ?', [email.toLowerCase()])
    .first('u.id', 'u.team_id', 'u.email', 'u.name', 'u.role', 't.tier', 't.feature_flags');
  if (!u) throw new Error(`demo organizer ${email} is not a user`);
  return {
    userId: u.id,
    teamId: u.team_id,
    email: u.email,
    name: u.name,
    role: u.role,
    tier: u.tier,
    flags: u.feature_flags,
  };
}

/** Meetings of the manifest not yet imported (by their client_reference_id). */
async function missing(db: Knex, manifest: ManifestMeeting[]): Promise<ManifestMeeting[]> {
  const done = new Set<string>(
    await db('meetings')
      .where({ status: 'completed' })
      .whereIn('client_reference_id', manifest.map(referenceOf))
      .pluck('client_reference_id'),
  );
  return manifest.filter((m) => !done.has(referenceOf(m)));
}

export async function importDemoMeetings(
  db: Knex,
  config: Config,
  people: DemoPeople,
  log: (s: string) => void = () => {},
): Promise<{ imported: number; total: number }> {
  const manifest = readManifest();
  const todo = await missing(db, manifest);
  if (todo.length) {
    log(`importing ${todo.length} demo meetings through the transcription pipeline`);
    // Loaded only here: the worker (and its bundler) is not needed when everything is imported.
    const { createWorker } = require('../../worker/worker') as typeof import('../../worker/worker');
    const seedConfig: Config = {
      ...config,
      allowPrivateNetwork: true,
      temporal: { ...config.temporal, taskQueue: `seed-demo-${randomBytes(4).toString('hex')}` },
    };
    // Temporal answers within the deadline, or this fails naming TEMPORAL_ADDRESS; only then is
    // anything served or started (a failure here must leave nothing open).
    const temporal = await connectTemporal(config);
    const { client, nativeConnection } = temporal;
    const { server, base } = await serveFixtures();
    try {
      const worker = await createWorker(
        { db, config: seedConfig, connection: nativeConnection },
        { taskQueue: seedConfig.temporal.taskQueue },
      );
      await worker.runUntil(async () => {
        const ids: string[] = [];
        for (const m of todo) {
          const r = await uploadAudio(
            { db, config: seedConfig, workflows: temporalWorkflows(client, seedConfig.temporal.taskQueue) },
            await principalOf(db, m.organizer_email),
            {
              url: `${base}/${encodeURIComponent(m.file)}`,
              title: m.title,
              client_reference_id: referenceOf(m),
              meeting_date: m.date,
              attendees: m.participants.map((p) => ({ displayName: p.name, email: p.email })),
            },
          );
          ids.push(r.meetingId);
        }
        await Promise.all(ids.map((id) => client.workflow.getHandle(transcriptionWorkflowId(id)).result()));
      });
    } finally {
      server.close();
      await temporal.close();
    }
  }
  await applyManifest(db, people, manifest);
  return { imported: todo.length, total: manifest.length };
}

/** Privacy, channel and shares as the manifest and the guest list say; idempotent. */
async function applyManifest(db: Knex, people: DemoPeople, manifest: ManifestMeeting[]): Promise<void> {
  const guests: { email: string }[] = readTeamFile().guests ?? [];
  for (const [i, m] of manifest.entries()) {
    const meeting = await db('meetings')
      .where({ client_reference_id: referenceOf(m) })
      .first('id');
    if (!meeting) continue;
    await db('meetings')
      .where({ id: meeting.id })
      .update({ privacy: m.privacy, channel_id: (m.channel && people.channelsByTitle.get(m.channel)) ?? null });
    // Every third meeting is shared with a guest, one expiring, so the demo shows shares of each kind.
    const guest = guests[i % Math.max(guests.length, 1)];
    if (guest && i % 3 === 0) {
      const has = await db('meeting_shares')
        .where({ meeting_id: meeting.id })
        .whereRaw('lower(email) = ?', [guest.email.toLowerCase()])
        .first('id');
      if (!has) {
        const organizer = people.usersByEmail.get(m.organizer_email.toLowerCase());
        await db('meeting_shares').insert({
          id: newId(),
          meeting_id: meeting.id,
          email: guest.email.toLowerCase(),
          shared_by: organizer?.id ?? null,
          expires_at: i % 2 === 0 ? null : new Date(Date.parse(m.date) + 30 * 86_400_000),
        });
      }
    }
  }
}

/**
 * Caption files in German and French, uploaded over real HTTP and transcribed by the workflow on a
 * real Temporal dev server: their language detected from their text (or taken as given), their words
 * searched by an inflected form in that language through the MCP client, and their notes drawing no
 * keyword or topic from the language's stop words.
 */
import stopwordLists from 'stopwords-iso/stopwords-iso.json';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../../support/graphql';
import { McpHarness, startMcp } from '../../../support/mcp';
import { startTestWorker, TestWorker, waitForRun } from '../../../support/worker';
import { MediaServer, startMediaServer } from './media-server';

/** A WebVTT file of these cues, two speakers taking turns, four seconds each. */
function vtt(cues: string[]): string {
  const at = (s: number) => `00:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000`;
  const body = cues.map((text, i) => `${at(i * 4)} --> ${at(i * 4 + 4)}\n<v ${i % 2 ? 'Lena' : 'Jonas'}>${text}`);
  return `WEBVTT\n\n${body.join('\n\n')}\n`;
}

const GERMAN = vtt([
  'Guten Morgen zusammen, wir sprechen heute über das Haus am See und die Renovierung.',
  'Das Dach des Hauses muss bis zum Winter erneuert werden, sonst regnet es in die Küche.',
  'Die Angebote der Dachdecker liegen vor, das günstigste kommt von der Firma Berger.',
  'Ich finde, wir sollten das Angebot von Berger annehmen und den Vertrag diese Woche unterschreiben.',
  'Einverstanden. Dann kümmere ich mich um die Heizung, die Heizung ist auch schon sehr alt.',
  'Für die Heizung brauchen wir einen Kostenvoranschlag, am besten von zwei Installateuren.',
  'Die Küche planen wir erst im Frühjahr, wenn das Dach fertig ist.',
  'Gut, dann sind Dach und Heizung die wichtigsten Punkte für den Herbst.',
  'Ich schicke die Unterlagen zur Heizung morgen an alle.',
  'Danke, dann sehen wir uns nächste Woche wieder.',
]);

const FRENCH = vtt([
  'Bonjour à tous, nous allons parler aujourd’hui du budget du festival et des bénévoles.',
  'Le budget du festival a augmenté parce que la location de la scène coûte plus cher cette année.',
  'Nous avons reçu trois devis pour la scène, le moins cher vient de la société Lumière.',
  'Je propose que nous acceptions le devis de Lumière et que nous signions le contrat cette semaine.',
  'D’accord. Pour les bénévoles, il nous faut au moins quarante personnes pour le week-end.',
  'Les bénévoles recevront un repas et un tee-shirt du festival.',
  'La billetterie ouvrira en mars, les billets coûteront vingt euros.',
  'Donc le budget, la scène et les bénévoles sont les priorités du mois.',
  'Je vous envoie le tableau du budget demain matin.',
  'Merci à tous, à la semaine prochaine.',
]);

describe('caption files in other languages', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let mcp: McpHarness;
  let worker: TestWorker;
  let media: MediaServer;
  let u: TestUser;
  let outsider: TestUser;
  const taskQueue = testTaskQueue('caption-languages');
  const ids: Record<'german' | 'french' | 'givenFrench', string> = { german: '', french: '', givenFrench: '' };

  async function upload(path: string, body: string, title: string, extra: Record<string, unknown> = {}) {
    const url = media.serve(path, { body, contentType: 'text/vtt' });
    const res = await gql.request(u.key, UPLOAD_AUDIO, { input: { url, title, ...extra } });
    expect(res.body.errors).toBeUndefined();
    const id = res.body.data.uploadAudio.meetingId as string;
    expect(await waitForRun(gql.temporal, id)).toMatchObject({ status: 'completed' });
    return id;
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    u = await makeUser(t.db, await makeTeam(t.db), { role: 'admin' });
    outsider = await makeUser(t.db, await makeTeam(t.db), { role: 'admin' });
    media = await startMediaServer();
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: taskQueue });
    mcp = await startMcp(t.db);
    worker = await startTestWorker(t.db, { taskQueue });
    ids.german = await upload('/recordings/haus.vtt', GERMAN, 'Hausrunde');
    ids.french = await upload('/recordings/festival.vtt', FRENCH, 'Point festival');
    ids.givenFrench = await upload('/recordings/festival-fr.vtt', FRENCH, 'Point festival (fr)', { language: 'fr' });
  });
  afterAll(async () => {
    await worker?.stop();
    await mcp?.close();
    await gql?.close();
    await media?.close();
    await t?.drop();
  });

  const languageOf = (id: string) =>
    t.db('meetings').where({ id }).first('language', 'language_source', 'search_config');

  it('detects the language of captions uploaded without one, and keeps a given one as given', async () => {
    expect(await languageOf(ids.german)).toEqual({
      language: 'de',
      language_source: 'detected',
      search_config: 'german',
    });
    expect(await languageOf(ids.french)).toEqual({
      language: 'fr',
      language_source: 'detected',
      search_config: 'french',
    });
    expect(await languageOf(ids.givenFrench)).toEqual({
      language: 'fr',
      language_source: 'given',
      search_config: 'french',
    });
  });

  const search = async (key: string, keyword: string) => {
    const r = await mcp.call(key, 'svc_get_transcripts', { keyword, moments: 1, format: 'json' });
    expect(r.isError).toBe(false);
    return r.data as { meetings: { id: string }[]; moments: { meeting_id: string; text: string }[] };
  };

  it('finds a sentence by an inflected form of its words', async () => {
    // "Häuser" (plural) finds "Haus" and "Hauses"; "Dächer" finds "Dach".
    const houses = await search(u.key, 'Häuser');
    expect(houses.meetings.map((m) => m.id)).toEqual([ids.german]);
    expect(houses.moments[0].text).toMatch(/\*\*Haus(es)?\*\*/);
    expect((await search(u.key, 'Dächer')).meetings.map((m) => m.id)).toEqual([ids.german]);
    // "scènes" finds "scène"; "devis" and "bénévole" likewise, in both French meetings.
    const stage = await search(u.key, 'scènes');
    expect(new Set(stage.meetings.map((m) => m.id))).toEqual(new Set([ids.french, ids.givenFrench]));
    expect(stage.moments[0].text).toContain('**scène**');
    expect((await search(u.key, 'bénévole')).meetings).toHaveLength(2);
  });

  it('shows another team nothing of them', async () => {
    expect((await search(outsider.key, 'Häuser')).meetings).toEqual([]);
    expect((await search(outsider.key, 'scènes')).meetings).toEqual([]);
  });

  it('draws no keyword or topic from the language’s stop words', async () => {
    for (const [id, code] of [
      [ids.german, 'de'],
      [ids.french, 'fr'],
    ] as const) {
      const stop = new Set((stopwordLists as Record<string, string[]>)[code]);
      const r = await mcp.call(u.key, 'svc_get_summary', { transcriptId: id });
      expect(r.isError).toBe(false);
      const { keywords, topics_discussed: topics } = r.data as { keywords: string[]; topics_discussed: string[] };
      expect(keywords.length).toBeGreaterThan(0);
      const words = [...keywords, ...topics].flatMap((k) => k.toLowerCase().split(/\s+/));
      expect(words.filter((w) => stop.has(w))).toEqual([]);
    }
  });
});

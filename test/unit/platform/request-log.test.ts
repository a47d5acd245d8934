import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createBaseApp, requestLog } from '../../../services/platform/http';

interface Probe {
  bindings: Record<string, unknown>;
  sameLogger: boolean;
}

const probe = async (res: Response) => (await res.json()) as Probe;

/** Each request's logger carries the id the response names in x-request-id. */
describe('requestLog', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = createBaseApp([]);
    app.get('/probe', (_req, res) => {
      const first = requestLog(res);
      res.json({ bindings: first.bindings(), sameLogger: requestLog(res) === first });
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("binds the caller's x-request-id when it is well formed", async () => {
    const res = await fetch(`${base}/probe`, { headers: { 'x-request-id': 'trace-42.a:b' } });
    expect(res.headers.get('x-request-id')).toBe('trace-42.a:b');
    expect(await probe(res)).toEqual({
      bindings: expect.objectContaining({ requestId: 'trace-42.a:b' }),
      sameLogger: true,
    });
  });

  it('binds a fresh id, the one the response names, when the header is missing or malformed', async () => {
    for (const headers of [{}, { 'x-request-id': 'bad id with spaces' }] as Record<string, string>[]) {
      const res = await fetch(`${base}/probe`, { headers });
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await probe(res)).bindings).toEqual(expect.objectContaining({ requestId: id }));
    }
  });

  it('gives each request its own logger', async () => {
    const [a, b] = await Promise.all([fetch(`${base}/probe`), fetch(`${base}/probe`)]);
    const [ja, jb] = [await probe(a), await probe(b)];
    expect(ja.bindings.requestId).not.toBe(jb.bindings.requestId);
  });
});

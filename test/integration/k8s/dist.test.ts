/**
 * dist/ as `npm run build` leaves it is complete: the image's build stage copies it whole, with no file
 * of its own beside it, so the compiled roles find there what they read beside their modules (the
 * pages' script and stylesheet, the demo meetings the seed imports; scripts/dist-assets.ts lists them).
 * Built the Dockerfile's way by test/support/k8s/image.ts, without the workflow bundle (not needed here).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DIST_ASSETS } from '../../../scripts/dist-assets';
import { ImageApp, imageContract, prepareImageApp, RoleProcess, startRole } from '../../support/k8s/image';
import { REPO_ROOT } from '../../support/k8s/tools';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const run = promisify(execFile);

let app: ImageApp;
let t: TestDatabase;
let mcp: RoleProcess | undefined;

beforeAll(async () => {
  [app, t] = await Promise.all([prepareImageApp(), createTestDatabase()]);
}, 4 * 60_000);

afterAll(async () => {
  await mcp?.stop();
  await t?.drop();
  app?.remove();
}, 60_000);

function filesUnder(abs: string, rel = ''): string[] {
  return readdirSync(path.join(abs, rel)).flatMap((f) => {
    const r = path.join(rel, f);
    return statSync(path.join(abs, r)).isDirectory() ? filesUnder(abs, r) : [r];
  });
}

describe('dist/ built as the image builds it', () => {
  it('takes dist/ from the build stage only: nothing from the build context lands in it', () => {
    const contract = imageContract();
    const dist = path.posix.join(contract.workdir, 'dist');
    expect(contract.contextCopies.filter((c) => c.to === dist || c.to.startsWith(`${dist}/`))).toEqual([]);
  });

  it('holds every file the compiled modules read, next to them', () => {
    for (const a of DIST_ASSETS) {
      expect(statSync(path.join(app.root, 'dist', a.readBy.replace(/\.ts$/, '.js'))).isFile()).toBe(true);
      const files = filesUnder(path.join(REPO_ROOT, a.dir)).sort();
      expect([a.dir, filesUnder(path.join(app.root, 'dist', a.dir)).sort()]).toEqual([a.dir, files]);
    }
  });

  it('the compiled mcp role serves the pages\' stylesheet and script from dist/', async () => {
    const role = startRole(
      'mcp',
      app.command(['serve', 'mcp']),
      {
        PATH: process.env.PATH ?? '',
        ...app.env,
        DATABASE_URL: t.url,
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
        SECRETS_KEY: 'ab'.repeat(32),
        HOST: '127.0.0.1',
        MCP_PORT: '0',
        LOG_LEVEL: 'info',
        SHUTDOWN_GRACE_MS: '1000',
      },
      app.root,
    );
    mcp = role;
    const ready = await role.waitForLog((l) => l.msg === 'ready' && Array.isArray(l.urls));
    const base = /^(http:\/\/127\.0\.0\.1:\d+)\//.exec((ready.urls as string[])[0])![1];
    for (const [name, type] of [
      ['app.css', 'text/css'],
      ['app.js', 'text/javascript'],
    ]) {
      const res = await fetch(`${base}/assets/${name}`);
      expect([name, res.status, res.headers.get('content-type')]).toEqual([name, 200, `${type}; charset=utf-8`]);
      expect(await res.text()).toBe(readFileSync(path.join(REPO_ROOT, 'services/web/assets', name), 'utf8'));
    }
    expect((await role.stop()).code).toBe(0);
  }, 60_000);

  it('the compiled seed reads the demo team and every meeting of its manifest from dist/', async () => {
    const script = [
      "const { readManifest } = require('./dist/services/cli/demo/meetings.js');",
      "const { readTeamFile, FIXTURES_DIR } = require('./dist/services/cli/demo/people.js');",
      "const { existsSync } = require('node:fs');",
      "const { join } = require('node:path');",
      'const meetings = readManifest();',
      'process.stdout.write(JSON.stringify({ dir: FIXTURES_DIR, users: readTeamFile().users.length, meetings: meetings.length, missing: meetings.filter((m) => !existsSync(join(FIXTURES_DIR, m.file))).map((m) => m.file) }));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: app.root, env: { PATH: process.env.PATH ?? '', ...app.env } });
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'services/cli/demo/meetings/manifest.json'), 'utf8')) as { meetings: unknown[] };
    const team = JSON.parse(readFileSync(path.join(REPO_ROOT, 'services/cli/demo/meetings/team.json'), 'utf8')) as { users: unknown[] };
    expect(JSON.parse(stdout)).toEqual({ dir: path.join(app.root, 'dist/services/cli/demo/meetings'), users: team.users.length, meetings: manifest.meetings.length, missing: [] });
    expect(manifest.meetings.length).toBe(24);
  });
});

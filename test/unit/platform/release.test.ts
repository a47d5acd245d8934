/**
 * One release number everywhere: the code's RELEASE, package.json (and its lock), the chart's version
 * and appVersion (the default image tag), the newest CHANGELOG.md entry; releases.json lists every
 * published release oldest first with the full commit it was cut from, all older than this one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compareReleases, RELEASE } from '../../../services/platform/release';

const ROOT = join(__dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the release number', () => {
  it('is semver and the same in package.json, its lock file and the chart', () => {
    expect(RELEASE).toMatch(/^\d+\.\d+\.\d+$/);
    const pkg = JSON.parse(read('package.json'));
    const lock = JSON.parse(read('package-lock.json'));
    const chart = parse(read('charts/meeting-intelligence/Chart.yaml'));
    expect({
      pkg: pkg.version,
      lock: lock.version,
      lockRoot: lock.packages[''].version,
      chart: chart.version,
      app: chart.appVersion,
    }).toEqual({ pkg: RELEASE, lock: RELEASE, lockRoot: RELEASE, chart: RELEASE, app: RELEASE });
    // An empty image.tag means appVersion: the image of a release is the release's number.
    expect(parse(read('charts/meeting-intelligence/values.yaml')).image.tag).toBe('');
  });

  it('heads CHANGELOG.md, below Unreleased, and every release has its entry', () => {
    const log = read('CHANGELOG.md');
    const headings = [...log.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]);
    expect(headings.slice(0, 2)).toEqual(['Unreleased', RELEASE]);
    const released = JSON.parse(read('releases.json')).releases.map((r: { version: string }) => r.version);
    for (const v of released) expect(headings).toContain(v);
  });

  it('is newer than every release recorded in releases.json, each with its full commit', () => {
    const releases: { version: string; commit: string }[] = JSON.parse(read('releases.json')).releases;
    expect(releases.length).toBeGreaterThan(0);
    for (const r of releases) expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
    const versions = releases.map((r) => r.version);
    expect([...versions].sort(compareReleases)).toEqual(versions);
    expect(releases.filter((r) => compareReleases(r.version, RELEASE) >= 0).map((r) => r.version)).toEqual(
      releases.some((r) => r.version === RELEASE) ? [RELEASE] : [],
    );
  });
});

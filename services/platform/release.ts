/**
 * This code's release (semver). package.json, the chart's version and appVersion (the default image
 * tag) and CHANGELOG.md carry the same number; test/unit/platform/release.test.ts keeps them equal.
 * The schema guard compares it with the release each applied migration declares (see schema.ts).
 */
export const RELEASE = '0.2.0';

/** Orders two releases (major.minor.patch, numerically): negative when a is older than b. */
export function compareReleases(a: string, b: string): number {
  const pa = parseRelease(a);
  const pb = parseRelease(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

function parseRelease(v: string): [number, number, number] {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);
  if (!m) throw new Error(`release "${v}" is not major.minor.patch`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

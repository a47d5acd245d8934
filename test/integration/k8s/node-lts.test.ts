/**
 * The image runs a Node release line that still gets security fixes (Node 20 reached end of life on
 * 2026-04-30; the current LTS is 24), while the code keeps running on Node 20.19+ (package.json
 * engines, this machine and CI). docs/operations.md says which versions are tested where.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../support/k8s/tools';

const DOCKERFILE = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const OPERATIONS = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
const PKG = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };

/** Node release lines with security support as of this repository's date (LTS lines only). */
const SUPPORTED_LTS_MAJORS = [22, 24];
const IMAGE_MAJOR = 24;

const imageTag = () => /^ARG NODE_IMAGE=node:(\d+)\.(\d+)\.(\d+)(-[\w.-]+)?(@sha256:[a-f0-9]{64})?$/m.exec(DOCKERFILE);

describe('Node versions', () => {
  it(`the image is built FROM the current Node LTS (${IMAGE_MAJOR}), an exact release`, () => {
    const m = imageTag();
    expect(m).not.toBeNull();
    const major = Number(m![1]);
    expect(SUPPORTED_LTS_MAJORS).toContain(major);
    expect(major).toBe(IMAGE_MAJOR);
    // Every FROM uses that ARG (no stage left on another Node).
    for (const from of DOCKERFILE.match(/^FROM\s+\S+/gm) ?? []) expect(from).toBe('FROM ${NODE_IMAGE}');
    // The comment that shows how to pin by digest names the same release.
    expect(DOCKERFILE).not.toMatch(/node:20\./);
  });

  it('the code still supports Node 20.19 (engines unchanged)', () => {
    expect(PKG.engines.node).toBe('>=20.19');
  });

  it('docs/operations.md says which Node versions are tested: 20 in CI and on a development machine, the image on 24', () => {
    const [, major, minor, patch] = imageTag()!;
    expect(OPERATIONS).toMatch(/Node\.js versions/);
    expect(OPERATIONS).toContain(`node:${major}.${minor}.${patch}`);
    expect(OPERATIONS).toMatch(/Node(\.js)? 20\b[^\n]*(CI|test)/);
    expect(OPERATIONS).toMatch(/>=\s?20\.19/);
  });
});

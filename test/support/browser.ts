/**
 * Debian's chromium for browser tests, driven by playwright-core (never a browser download). As root
 * it needs --no-sandbox; the background-networking flags keep it from calling out of this machine.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function browserPath(): string {
  const candidates = [
    process.env.CHROMIUM_PATH,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ].filter(Boolean) as string[];
  const found = candidates.find((p) => existsSync(p));
  if (!found)
    throw new Error("No chromium found: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH");
  return found;
}

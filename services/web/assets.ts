/**
 * The pages' only script and stylesheet, served from /assets (the Content-Security-Policy allows
 * scripts and styles from this origin only). They are files of their own beside this module
 * (assets/app.js, assets/app.css), read once when the module loads: a missing file fails the web
 * role at start, not a page later. `npm run build` copies them next to the compiled module
 * (scripts/dist-assets.ts).
 *
 * The script is progressive: every page works without it. With it:
 *   - `#t=<seconds>` scrolls to the sentence said at that moment, loading its part of the transcript
 *     first when the page does not hold it (a citation's link);
 *   - "Later sentences" loads the next part in place instead of opening a new page;
 *   - a live meeting's transcript grows as sentences arrive (polled every few seconds).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const asset = (name: string) => readFileSync(join(__dirname, 'assets', name), 'utf8');

export const APP_JS = asset('app.js');
export const APP_CSS = asset('app.css');

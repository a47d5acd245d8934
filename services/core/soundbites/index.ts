/**
 * Soundbites: excerpts of a meeting, their privacy and share links.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// Soundbites of a meeting: listed, created, their limits.
export {
  createSoundbite,
  listSoundbites,
  MEDIA_TYPES,
  SOUNDBITE_LIST,
  SOUNDBITE_NAME_MAX,
  SOUNDBITE_PRIVACIES,
  SOUNDBITE_SUMMARY_MAX,
} from './soundbites';
export type { SoundbiteList } from './soundbites';

// A soundbite opened by its share link.
export { openSoundbite } from './open';
export type { OpenedSoundbite } from './open';

/** Soundbites: excerpts of a meeting, their privacy and share links. What other layers may import of this domain. */
export * from './soundbites';
export * from './open';

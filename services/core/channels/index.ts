/** Channels: the team's channels as the caller may see them. What other layers may import of this domain. */
export * from './channels';

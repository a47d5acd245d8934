/**
 * Channels: the team's channels as the caller may see them.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// The team's channels as the caller may see them.
export { getChannel, listChannels } from './channels';

/**
 * Conversation analytics of a team and its users over a time window.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// A team's and its users' conversation analytics over a window, and the date-time rule other domains share.
export { getAnalytics, requireDateTime } from './analytics';

/**
 * Retention: a team's retention period and the batches of the daily retention run.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// A team's retention period and the daily retention run's batches.
export { deleteExpiredMeetings, getTeamRetention, pruneReadAudit, setTeamRetention } from './retention';

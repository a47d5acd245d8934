/** Retention: a team's retention period and the batches of the daily retention run. What other layers may import of this domain. */
export * from './retention';

/** Conversation analytics of a team and its users over a time window. What other layers may import of this domain. */
export * from './analytics';

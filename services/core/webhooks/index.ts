/** Webhooks: saved endpoints and secrets, who is sent what, the signed send, the ledger and redelivery. What other layers may import of this domain. */
export * from './types';
export * from './url';
export * from './settings';
export * from './secrets';
export * from './signing';
export * from './deliveries';
export * from './sender';
export * from './ledger';
export * from './redeliver';

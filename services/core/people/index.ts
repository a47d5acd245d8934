/** People: teams, users, groups and contacts, and API keys. What other layers may import of this domain. */
export * from './teams';
export * from './users';
export * from './people';
export * from './apikeys';
export * from './sessions';
export * from './signins';

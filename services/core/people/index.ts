/**
 * People: teams, users, groups and contacts, and API keys.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// Teams and their feature flags.
export { createTeam, setTeamFlags } from './teams';

// Users.
export { createUser } from './users';

// A user, their groups and contacts.
export { CONTACT_LIST_CAP, getUser, getUserContacts, getUserGroups } from './people';
export type { ContactRecord } from './people';

// API keys: created, listed, revoked, authenticated.
export {
  apiKeyCall,
  apiKeyCredential,
  authenticateApiKey,
  createApiKey,
  createOwnApiKey,
  listApiKeys,
  revokeApiKey,
} from './apikeys';

// A key's own call allowance, set by a team admin or an operator.
export { MAX_KEY_RATE_LIMIT, parseKeyRateLimit, setApiKeyRateLimit } from './key-limits';
export type { KeyAllowance } from './key-limits';

// Web page sessions.
export { endSession, sessionOf, startSession } from './sessions';
export type { PageSession } from './sessions';

// Sign-ins, and users deactivated and reactivated.
export { deactivateUser, endSignIns, listSignIns, reactivateUser } from './signins';

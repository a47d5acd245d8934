/**
 * GraphQL modules beyond the core schema (schema.ts): each issue's surface in a file of its own, with
 * `extend type Query` / `extend type Mutation` SDL and thin resolvers. Add one line per module.
 */
import type { GraphqlContext } from '../resolvers';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Resolver = (parent: any, args: any, ctx: GraphqlContext, info: any) => unknown;

export interface GraphqlModule {
  typeDefs: string;
  resolvers: Record<string, Record<string, Resolver | unknown>>;
}

export const MODULES: GraphqlModule[] = [];

// Automation rules (createRule, updateRule, setRuleEnabled, deleteRule, testRule, rules, rule).
import { rulesModule } from './rules';
MODULES.push(rulesModule);

// Live meetings (startLiveMeeting, appendLiveSentences, pauseLiveMeeting, resumeLiveMeeting, endLiveMeeting).
import { liveModule } from './live';
MODULES.push(liveModule);

// Webhooks (developerSettings, saveWebhookUrl, clearWebhookUrl, setWebhookSecret, teamWebhook, setTeamWebhook, setTeamWebhookSecret, clearTeamWebhook, webhookDeliveries, webhookDelivery, redeliverWebhook).
import { webhooksModule } from './webhooks';
MODULES.push(webhooksModule);

// Access governance (deleteMeeting, setLegalHold, liftLegalHold, teamRetention, setTeamRetention).
import { governanceModule } from './governance';
MODULES.push(governanceModule);

// The read audit (readAudit).
import { auditModule } from './audit';
MODULES.push(auditModule);

// API keys and sign-ins (apiKeys, teamApiKeys, signIns, createApiKey, revokeApiKey, endSignIns, deactivateUser, reactivateUser).
import { keysModule } from './keys';
MODULES.push(keysModule);

// Action items (actionItems, updateActionItem).
import { actionItemsModule } from './action-items';
MODULES.push(actionItemsModule);

// Exports (exportTranscript).
import { exportsModule } from './exports';
MODULES.push(exportsModule);

// Naming a meeting speaker (renameSpeaker).
import { speakersModule } from './speakers';
MODULES.push(speakersModule);

// Voiceprints (voiceprints, speakerProfiles, setVoiceprints, mergeSpeakerProfiles, forgetSpeakerProfile).
import { voiceprintsModule } from './voiceprints';
MODULES.push(voiceprintsModule);

// Changes since a cursor (changes).
import { changesModule } from './changes';
MODULES.push(changesModule);

// A meeting's notes written again (resummarizeMeeting).
import { summariesModule } from './summaries';
MODULES.push(summariesModule);

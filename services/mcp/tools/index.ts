/**
 * Every tool, one file per group (search, transcripts, action items, meeting-admin, speakers, voiceprints, channels, soundbites, people,
 * analytics, automation, live, changes). Order is the order of tools/list.
 */
import type { ToolDef } from '../tool';
import { searchTools } from './search';
import { transcriptTools } from './transcripts';
import { liveTools } from './live';
import { analyticsTools } from './analytics';
import { meetingAdminTools } from './meeting-admin';
import { speakerTools } from './speakers';
import { voiceprintTools } from './voiceprints';
import { channelTools } from './channels';
import { soundbiteTools } from './soundbites';
import { peopleTools } from './people';
import { automationTools } from './automation';
import { actionItemTools } from './action-items';
import { changesTools } from './changes';

export const ALL_TOOLS: ToolDef[] = [
  ...searchTools,
  ...transcriptTools,
  ...actionItemTools,
  ...changesTools,
  ...liveTools,
  ...analyticsTools,
  ...meetingAdminTools,
  ...speakerTools,
  ...voiceprintTools,
  ...channelTools,
  ...soundbiteTools,
  ...peopleTools,
  ...automationTools,
];

/**
 * Live meetings: start, drive (append, pause, resume, end), the state machine, the active-meeting
 * list.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// The live meeting's states and the messages between the API and its workflow.
export type { EndReason, LiveActorArgs, LiveMeetingWorkflowInput, LiveState, LiveStateResult } from './protocol';

// What starting a live meeting takes.
export type { StartLiveMeetingInput } from './validate';

// Starting a live meeting.
export { startLiveMeeting } from './start';

// Driving it: append sentences, pause, resume, end.
export { appendLiveSentences, endLiveMeeting, pauseLiveMeeting, resumeLiveMeeting } from './drive';

// What the live workflow's activities store and read.
export {
  closeLiveMeeting,
  closeLiveMeetingIfIdle,
  countLiveMeetings,
  failLiveMeeting,
  MeetingNotLiveError,
  openLiveMeeting,
  readLiveSentences,
  setLiveState,
} from './store';
export type { IdleCheck } from './store';

// The active meetings a caller may see.
export { listActiveMeetings, LIVE_STATES } from './active';

export { analyze, type Analytics, type AnalyzeOptions, type MeetingAnalytics, type SpeakerAnalytics } from './analyze';
export { fillersIn, countFillers } from './fillers';
export { monologuesBySpeaker, MONOLOGUE_MIN_SECONDS } from './monologues';
export { polarity, type Polarity } from './sentiment';

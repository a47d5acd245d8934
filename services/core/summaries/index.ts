/** A meeting's summary written again on request, and the record of every summary's run. What other layers may import of this domain. */
export { requestResummary } from './request';
export type { ResummaryRequest } from './request';
export { replaceSummary, storedMeetingText, summaryRow } from './store';
export type { ReplacedSummary, StoredMeetingText } from './store';
export { latestSummaryRun, recordSummaryRun } from './runs';
export type { LatestSummaryRun, SummaryRunOf, SummaryTrigger } from './runs';

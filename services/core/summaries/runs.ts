/**
 * A meeting's summary runs (table summary_runs): one row per summary the meeting was given, written
 * in the transaction that stores the summary, and the same facts as metrics.
 */
import type { Knex } from 'knex';
import type { SummaryRun } from '../../intelligence/summarize';
import { summaryRuns, summaryRunSeconds, summaryTokens } from '../../platform/metrics';
import { visibleTo, type Principal } from '../access';
import { newId } from '../input';

export type SummaryTrigger = 'transcription' | 'live' | 'resummary';

export interface SummaryRunOf {
  meetingId: string;
  teamId: string;
  trigger: SummaryTrigger;
  /** The person who asked for a re-summary. */
  requestedBy?: string | null;
  run: SummaryRun;
}

/** The row of `summary_runs` and the metrics; returns the row's id. */
export async function recordSummaryRun(tx: Knex | Knex.Transaction, r: SummaryRunOf): Promise<string> {
  const id = newId();
  const run = r.run;
  await tx('summary_runs').insert({
    id,
    meeting_id: r.meetingId,
    team_id: r.teamId,
    trigger: r.trigger,
    // A user id only: a system principal (automation) is nobody's account.
    requested_by: r.requestedBy ? tx.raw('(select id from users where id = ?)', [r.requestedBy]) : null,
    source: run.source,
    model: run.model,
    prompt_version: run.prompt_version,
    duration_ms: Math.round(run.duration_ms),
    calls: run.calls,
    prompt_tokens: run.prompt_tokens,
    completion_tokens: run.completion_tokens,
    parts: run.parts,
    response_format: run.response_format,
    fallback_fields: JSON.stringify(run.fallback_fields),
    dropped_lines: run.dropped_lines,
    error: run.error ? [...run.error].slice(0, 500).join('') : null,
  });
  // The outcome says whether the chat model's notes were used: all, in part, or not at all.
  const outcome =
    run.source === 'extractive'
      ? run.model
        ? 'llm_failed'
        : 'extractive'
      : run.fallback_fields.length
        ? 'llm_partial'
        : 'llm';
  summaryRuns.inc({ trigger: r.trigger, outcome });
  summaryRunSeconds.observe({ source: run.source }, run.duration_ms / 1000);
  if (run.prompt_tokens) summaryTokens.inc({ kind: 'prompt' }, run.prompt_tokens);
  if (run.completion_tokens) summaryTokens.inc({ kind: 'completion' }, run.completion_tokens);
  return id;
}

/** Who wrote a meeting's current notes: its latest summary run, as the meeting page shows it. */
export interface LatestSummaryRun {
  source: 'llm' | 'extractive';
  model: string | null;
  trigger: SummaryTrigger;
  created_at: Date;
  fallback_fields: string[];
  error: string | null;
}

/**
 * The latest run of a meeting `p` may see; null when it has none (notes from before runs were
 * recorded) and for a meeting it may not see, whose runs say nothing to it.
 */
export async function latestSummaryRun(db: Knex, p: Principal, meetingId: string): Promise<LatestSummaryRun | null> {
  const row = await db('summary_runs as r')
    .join('meetings as m', 'm.id', 'r.meeting_id')
    .modify(visibleTo(p, 'm'))
    .where('r.meeting_id', meetingId)
    .orderBy('r.created_at', 'desc')
    .first('r.source', 'r.model', 'r.trigger', 'r.created_at', 'r.fallback_fields', 'r.error');
  return row ?? null;
}

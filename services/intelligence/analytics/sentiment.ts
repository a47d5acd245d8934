import Sentiment from 'sentiment';

export type Polarity = 'positive' | 'neutral' | 'negative';

/**
 * AFINN scores words by their everyday sense; in meetings some of them are mostly filler or jargon
 * ("like", "kind of", "yeah", "no", "kill the job", "cut a release"), so they are scored 0 here.
 */
const MEETING_NEUTRAL: Record<string, number> = {
  like: 0,
  kind: 0,
  pretty: 0,
  yeah: 0,
  yes: 0,
  no: 0,
  please: 0,
  want: 0,
  matter: 0,
  block: 0,
  blocked: 0,
  cut: 0,
  kill: 0,
  killed: 0,
  god: 0,
};

const analyzer = new Sentiment();

/** Positive when the AFINN score of the sentence is above 0, negative below, neutral at 0. */
export function polarity(text: string): Polarity {
  const { score } = analyzer.analyze(text, { extras: MEETING_NEUTRAL });
  return score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral';
}

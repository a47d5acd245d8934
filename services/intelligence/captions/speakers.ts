/**
 * Who said what inside one cue. WebVTT names speakers with voice spans (`<v Ada>…</v>`, or
 * `<v.loud Ada>`); both formats also use a `Name:` label at the start of a line, optionally after a
 * dialogue dash or the broadcast `>>` marker. One cue can hold several speakers.
 */

export interface Utterance {
  /** Undefined when the cue names nobody: the caller carries the previous speaker forward. */
  speaker?: string;
  text: string;
  raw: string;
}

const VOICE_OPEN = /<v(?:\.[^\s>]*)?(?:[ \t]+([^>]*))?>/g;

// A label is 1–4 capitalised words ("Ada", "Dr. Grace Okafor", "Speaker 2") or a diarizer id
// ("SPEAKER_01"), then a colon and a space. Lower-case starts ("note: …") are never labels.
const LABEL =
  /^(?:-\s*|>>\s*)?((?:[\p{Lu}][\p{L}\p{M}'’.-]*)(?:[ \t]+[\p{Lu}\p{N}][\p{L}\p{M}\p{N}'’.-]*){0,3}|SPEAKER_\d+)[ \t]*:[ \t]+(\S[\s\S]*)$/u;

// Capitalised words that introduce content rather than name a person ("Action Item: send the deck").
const NOT_A_SPEAKER = new Set([
  'note',
  'notes',
  'action item',
  'action items',
  'action',
  'todo',
  'to do',
  'update',
  'summary',
  'agenda',
  'decision',
  'next steps',
  'fyi',
  'ps',
  're',
  'question',
  'answer',
  'example',
  'important',
  'reminder',
  'warning',
  'edit',
  'status',
  'topic',
  'title',
  'subject',
  'chapter',
  'part',
  'step',
  'meeting',
  'recording',
  'transcript',
  'section',
  'goal',
  'goals',
  'result',
  'results',
  'tip',
  'caution',
]);

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  lrm: '',
  rlm: '',
  ndash: '–',
  mdash: '—',
  hellip: '…',
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Cue markup removed: HTML-like tags (<i>, <c.x>, <00:01.000>), SSA overrides ({\an8}), entities, extra spaces. */
export function cleanCueText(raw: string): string {
  return decodeEntities(raw.replace(/<[^>]*>/g, '').replace(/\{\\[^}]*\}/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

export function speakerLabel(line: string): { speaker: string; rest: string } | undefined {
  const m = LABEL.exec(line.trim());
  if (!m) return undefined;
  const speaker = m[1].replace(/\s+/g, ' ').trim();
  const lower = speaker.toLowerCase();
  // "Action Item:", "Step 2:", "Meeting Notes:" introduce content; their first word gives them away.
  if (NOT_A_SPEAKER.has(lower) || NOT_A_SPEAKER.has(lower.split(' ')[0])) return undefined;
  return { speaker, rest: m[2] };
}

/** Split on voice spans; text before the first span belongs to nobody named. */
function splitVoices(cue: string): { speaker?: string; raw: string }[] {
  const parts: { speaker?: string; raw: string }[] = [];
  const opens = [...cue.matchAll(VOICE_OPEN)];
  if (opens.length === 0) return [{ raw: cue }];
  const lead = cue.slice(0, opens[0].index);
  if (cleanCueText(lead)) parts.push({ raw: lead });
  opens.forEach((m, i) => {
    const end = i + 1 < opens.length ? opens[i + 1].index : cue.length;
    const name = (m[1] ?? '').replace(/\s+/g, ' ').trim();
    parts.push({ speaker: name || undefined, raw: cue.slice(m.index, end) });
  });
  return parts;
}

/** Split a span without a voice tag on lines that start with a `Name:` label. */
function splitLabels(raw: string): Utterance[] {
  const out: Utterance[] = [];
  for (const line of raw.split('\n')) {
    const label = speakerLabel(cleanCueText(line));
    if (label || out.length === 0) {
      out.push({ speaker: label?.speaker, text: cleanCueText(label ? label.rest : line), raw: line });
    } else {
      const last = out[out.length - 1];
      last.text = cleanCueText(`${last.text} ${line}`);
      last.raw = `${last.raw}\n${line}`;
    }
  }
  return out;
}

export function utterancesOfCue(cueText: string): Utterance[] {
  const out: Utterance[] = [];
  for (const part of splitVoices(cueText)) {
    if (part.speaker) {
      out.push({ speaker: part.speaker, text: cleanCueText(part.raw), raw: part.raw.trim() });
    } else {
      out.push(...splitLabels(part.raw.trim()));
    }
  }
  return out.filter((u) => u.text.length > 0);
}

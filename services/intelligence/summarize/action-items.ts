import type { Sentence } from '../types';
import { findDuePhrase, hasDeadline, resolveDue } from './due-dates';
import { foldCommitments } from './commitments';
import { prepare, type Prepared } from './terms';
import type { ActionItem, ActionItemKind } from './types';

/**
 * Action items are sentences that commit someone to do something after the meeting. Five kinds of
 * wording count, each with the owner it implies:
 *   - first person: "I'll…", "I will…", "I'm going to…", "let me check/send/…"   → the speaker
 *   - an offer:     "I can…", "happy to…", "want me to…" + a task                  → the speaker
 *   - the group:    "we need to…", "let's…", "we'll…" with a time said             → the speaker who raised it
 *   - a request:    "can you / could you / would you / please" + a task verb     → the person named, else whoever answers
 *   - a label or a named owner: "action item for Tom: …", "Priya will…", "Sam to…" → that person
 * A deadline ("by Friday", "before the 20th", "end of day") makes a sentence an action item on its own.
 * Meeting mechanics ("let's get started", "I'll share my screen", "I'll click on…"), interview prompts
 * ("can you tell me about…"), hedged plans ("we'll probably…") and concerns ("I'm worried…", "we'll need
 * a security review before…": a condition someone raises, which nobody took on) are left out.
 * commitments.ts then folds repeats, answers and recaps into one item per commitment.
 */

const FIRST_PERSON = /\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|i'll take|i'll handle)\b|^i'm on it[.!]?$/;
const FIRST_PERSON_NOT_A_TASK =
  /\b(?:i'll|i will) (?:be honest|admit|say|tell you|bet|be quick|be brief|start with|start by|hand it|pass it|stop sharing|share my screen|show you|walk you|let you|leave it|keep it short|just say|go(?: first| next| ahead)?(?:[.!,]|$)|kick (?:it|us|things) off|give you a quick|turn it over|click|drag|type|scroll|set it to|start the timer|read (?:them|it|these) out|start[.!]?$|be there|be back|be late|be out|take (?:your )?questions)|\bi'm going to (?:share|show|walk|stop|hand|pass|start by|be honest)|\bi will not\b|\bi'll never\b/;
const LET_ME =
  /\blet me (?:check|send|draft|write|update|ping|set up|schedule|book|sort out|dig into|look into|get back|follow up|find out|put together|create|file|open|fix|review|confirm|loop in|email|reach out|talk to|sync with|circle back)\b/;
const GROUP =
  /\b(?:we need to|we have to|we must|we should|we'll need to|we will need to|we're going to need to|let's|let us|we'll|we will)\b/;
const GROUP_MUST = /\b(?:we need to|we have to|we must|we should)\b/;
const GROUP_NOT_A_TASK =
  /\b(?:let's|let us) (?:see|say|be honest|start|get started|begin|kick (?:it )?off|dive in|jump in|move on|go|take a look|look at|talk about|wrap up|do a (?:quick )?round|hear|recap|pick up where|continue|skip|not|open it up|open the floor|group|decide|look|plan (?:the )?sprint|take a break|note that|do the|do a scenario)\b|\bwe'll (?:have (?:our|a|an|the)|ask|start|show|cover|go through|take questions)\b|\b(?:let's|let us) (?:do|try) (?:that|it|this|both)[.!]?$|\bwe'll see\b|\bwe will see\b|\bwe'll get there\b/;
const REQUEST = /\b(?:can you|could you|would you|will you|can we get you to|please)\b/;
const REQUEST_TASK =
  /\b(?:can you|could you|would you|will you|can we get you to|please)\s+(?:(?:also|maybe|just|quickly|then)\s+)*(?:send|share (?:the|your|it|that|a|those|them)(?! screen)|review|update|check|look into|follow up|schedule|set up|book|write|draft|file|create|open|fix|ping|email|prepare|test|add|put together|sign|forward|loop in|invite|confirm|own|take (?:a look|care|over|on)|handle|reach out|coordinate|make sure|find out|dig into|get (?:me|us|the|a|that|it)|circle back|document|investigate|run|ship|merge|deploy|post|order|move|reply|call|remind)\b/;
const ACTION_LABEL = /\baction items?\b/;
const OFFER =
  /\b(?:i can|i could|happy to|i'm happy to|i'd be happy to|want me to|shall i|i can also)\s+(?:(?:also|just|quickly)\s+)?(?:do that|take (?:that|it|this|care)|help (?:with|you|them|out)|review|send|check|look|write|set up|draft|own|handle|follow up|join|share|update|fix|build|do the|do it|do one|ask|talk|call|reach out|schedule|book|prepare|put together|get|find)\b/;
// An estimate ("I can design that in two or three weeks") says how long, not that someone will.
const ESTIMATE =
  /\bin (?:about |maybe |roughly )?(?:a|an|one|two|three|four|five|six|\d+)(?: or (?:two|three|four|five|six|\d+))? (?:days|weeks|months|hours)\b/;
const HEDGED = /\b(?:probably|maybe|might|perhaps|possibly|hopefully)\b/;
/** "I'll ping you if something comes up": a promise only should the need arise. */
const CONDITIONAL = /\bif (?:something|anything) (?:comes up|changes|happens)\b|\bif (?:needed|necessary)\b/;
/** Addressing someone by request wording that is about the call itself, not work after it. */
const REQUEST_NOT_A_TASK =
  /\b(?:can|could|would|will) you (?:(?:please|also|just) )?(?:hear|see|tell me|tell us|walk (?:me|us)|share your screen|show|start|go first|introduce|repeat|say)\b/;
/** A worry or a condition someone raises: said so it is heard, not something anyone took on. */
const CONCERN =
  /\b(?:i'm|i am|we're|we are) (?:a bit |a little |really |very |also |quite )*(?:worried|concerned|nervous)\b|\bmy (?:main )?(?:worry|concern|fear)\b|\bthe risk is\b|\b(?:we'll|we will|we would|we'd) need (?:a|an|the|to see)\b.*\bbefore\b|\blet's make sure we don't\b/;

export interface ActionItemContext {
  /** Full names of the people in the meeting (speakers and invitees); first names are matched too. */
  people: string[];
  meetingDate?: string;
  /** The sentences' content words without the people's names, when the caller has read them already. */
  prepared?: Prepared;
}

/** First names (and full names) to the person they stand for; a first name shared by two people is dropped. */
function nameIndex(people: string[]): Map<string, string> {
  const index = new Map<string, string>();
  const clashes = new Set<string>();
  for (const full of people) {
    const first = full.split(/\s+/)[0];
    for (const key of new Set([full, first])) {
      const prior = index.get(key);
      if (prior && prior !== full) clashes.add(key);
      else index.set(key, full);
    }
  }
  for (const key of clashes) index.delete(key);
  return index;
}

interface Owner {
  name: string;
  /** Named by address ("Tom, can you…") rather than as the subject of a task ("Tom will…"). */
  addressed: boolean;
}

/**
 * Finds the person the words name as the owner: "action item for X", "X will…", "X to…", "X, can you…",
 * "…, X?". The patterns are built once per meeting from the people in it.
 */
function ownerFinder(names: Map<string, string>): (text: string) => Owner | null {
  if (names.size === 0) return () => null;
  const alternatives = [...names.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
  const patterns = [
    new RegExp(`\\b[Aa]ction [Ii]tems? (?:for|to) (${alternatives})\\b`),
    new RegExp(`\\b(${alternatives})(?:'ll| will| is going to| to| can you| needs to| should| has to| owns| takes)\\b`),
    new RegExp(
      `^(?:\\W*(?:[Aa]nd|[Ss]o|[Oo]kay|OK|[Aa]lso)\\W+)?(${alternatives}),\\s+(?:can|could|would|will|please)\\b`,
    ),
    new RegExp(`\\b(?:[Cc]an|[Cc]ould|[Ww]ould|[Ww]ill) you\\b.*,\\s*(${alternatives})\\?*\\W*$`),
  ];
  const anyName = new RegExp(`\\b(?:${alternatives})\\b`);
  return (text) => {
    if (!anyName.test(text)) return null;
    for (const [i, p] of patterns.entries()) {
      const m = p.exec(text);
      if (m) return { name: names.get(m[1]) ?? m[1], addressed: i >= 2 };
    }
    return null;
  };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Strips the spoken run-up ("So, um, okay,") so the item reads as a task. */
function tidy(text: string): string {
  const t = text.replace(
    /^(?:(?:so|okay|ok|um+|uh+|alright|all right|and|yeah|right|cool|great|also|then)\b[,.]?\s*)+/i,
    '',
  );
  return t ? t[0].toUpperCase() + t.slice(1) : text;
}

export type Kind = 'first_person' | 'offer' | 'group' | 'request' | 'label' | 'named' | 'deadline';

function kindOf(lower: string, named: boolean, addressed: boolean): Kind | undefined {
  if (CONCERN.test(lower) || CONDITIONAL.test(lower)) return undefined;
  // "Action items." alone announces a list, and a question about them asks; neither is a task.
  if (
    ACTION_LABEL.test(lower) &&
    !lower.trimEnd().endsWith('?') &&
    lower
      .replace(ACTION_LABEL, '')
      .split(/\s+/)
      .filter((w) => /\w/.test(w)).length >= 3
  )
    return 'label';
  if (named) return 'named';
  if ((FIRST_PERSON.test(lower) && !FIRST_PERSON_NOT_A_TASK.test(lower)) || LET_ME.test(lower)) return 'first_person';
  if (OFFER.test(lower) && !ESTIMATE.test(lower)) return 'offer';
  // "Grace, can you …?" or "could you … by Friday?": asked of someone, whatever the verb.
  if (
    REQUEST.test(lower) &&
    !REQUEST_NOT_A_TASK.test(lower) &&
    (REQUEST_TASK.test(lower) || addressed || hasDeadline(lower))
  )
    return 'request';
  // What the group must do is a task; what it will do ("let's…", "we'll…") when a time is said. Hedged
  // plans ("we'll probably…") are neither.
  if (
    GROUP.test(lower) &&
    !GROUP_NOT_A_TASK.test(lower) &&
    !HEDGED.test(lower) &&
    (GROUP_MUST.test(lower) || findDuePhrase(lower))
  )
    return 'group';
  if (hasDeadline(lower)) return 'deadline';
  return undefined;
}

/** The person who answers a request: the next speaker other than the one asking. */
function responder(sentences: readonly Sentence[], at: number): string | null {
  for (let j = at + 1; j < sentences.length && j <= at + 3; j++) {
    if (sentences[j].speaker_id !== sentences[at].speaker_id) return sentences[j].speaker_name;
  }
  return null;
}

const ACCEPTANCE =
  /^(?:yes|yeah|yep|sure|ok|okay|of course|absolutely|definitely|will do|i will|i'll|i can|no problem|on it)\b/;

/** How an answer to a request starts ("Yes, I'll send it"): a yes, not merely "I'll". */
const ANSWER_START = /^(?:yes|yeah|yep|sure|ok|okay|of course|absolutely|definitely|will do|no problem)\b/;

/** How an offer is taken up ("Yes please", "That would help a lot", "Great, I'll add you"). */
const WELCOME =
  /^(?:yes|yeah|sure|ok|okay|please do|great|perfect|brilliant|lovely|thanks|thank you|sounds good|that would|that'd|that works)\b/;

/** A no from the person asked ("I can't this week", "Sorry, I'm out until Monday"). */
const DECLINE =
  /\b(?:i can't|i cannot|i can not|i won't be able|i'm not able|i am not able|i'm unable|i don't have (?:the )?(?:time|bandwidth|capacity)|not this (?:week|time)|i'm (?:swamped|fully booked|out|away|off) (?:this|until|all|today|tomorrow|next))\b|^(?:no|nope|sorry|unfortunately)\b(?! problem| worries)/;

/** A sentence that may state a commitment, before repeats and answers are folded (commitments.ts). */
export interface Candidate {
  item: ActionItem;
  /** The wording that made it one: a group's "let's…" or a bare deadline may be taken on by another. */
  wording: Kind | 'reply';
  /** Position in the sentences read. */
  at: number;
  /** "Sure." after a request: the answer to it, not a task of its own. */
  acceptance: boolean;
  /** Starts as an answer does ("Yes, I'll send the list on Wednesday"): it may complete a request. */
  accepts: boolean;
  /** Starts as the taking up of an offer does ("Yes please", "That would help", "Great, I'll…"). */
  welcomes: boolean;
  /** A no and nothing more ("I can't this week"): the person asked turns the request down. */
  declines: boolean;
}

function kindName(kind: Kind, addressed: boolean): ActionItemKind {
  if (kind === 'request' || addressed) return 'request';
  return kind === 'offer' ? 'offer' : 'commitment';
}

export function extractCandidates(sentences: readonly Sentence[], context: ActionItemContext): Candidate[] {
  const ownerIn = ownerFinder(nameIndex(context.people));
  const out: Candidate[] = [];
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i];
    const lower = s.text.toLowerCase().replace(/’/g, "'");
    const owner = ownerIn(s.text.replace(/’/g, "'"));
    const named = owner && owner.name !== s.speaker_name ? owner.name : null;
    const said = kindOf(lower, named !== null && !owner!.addressed, named !== null && owner!.addressed);
    // "I can't this week" says when, but it is a no, not a deadline of the speaker's; "Sorry, I'll send
    // it Monday" still commits.
    const no = (!said || said === 'deadline') && DECLINE.test(lower);
    const kind = no ? undefined : said;
    const acceptance = !no && ACCEPTANCE.test(lower) && !CONCERN.test(lower);
    const welcomes = !no && WELCOME.test(lower) && !CONCERN.test(lower);
    if (!kind && !acceptance && !welcomes && !no) continue;
    // A request goes to the person addressed, else whoever answers; a label or a named subject to that
    // person; "I'll…", "we need to…" and bare deadlines to the speaker, even when they address someone.
    const assignee =
      kind === 'request'
        ? (named ?? responder(sentences, i))
        : kind === 'label' || kind === 'named'
          ? (named ?? s.speaker_name)
          : s.speaker_name;
    const due = findDuePhrase(s.text);
    out.push({
      at: i,
      wording: kind ?? 'reply',
      acceptance: !kind && acceptance,
      accepts: ANSWER_START.test(lower),
      welcomes,
      declines: no,
      item: {
        text: tidy(s.text),
        assignee: assignee ?? null,
        due,
        due_date: due ? resolveDue(due, context.meetingDate) : null,
        speaker_name: s.speaker_name,
        start_time: s.start_time,
        index: s.index,
        kind: kindName(kind ?? 'first_person', Boolean(named && owner?.addressed)),
        moments: [{ index: s.index, start_time: s.start_time }],
      },
    });
  }
  return out;
}

/** The action items of a meeting, one per commitment (commitments.ts folds repeats and answers). */
export function extractActionItems(sentences: readonly Sentence[], context: ActionItemContext): ActionItem[] {
  const names = new Set(context.people.flatMap((p) => p.toLowerCase().split(/\s+/)));
  const prepared = context.prepared ?? prepare(sentences, names);
  return foldCommitments(extractCandidates(sentences, context), {
    words: prepared.sentences.map((p) => p.unigrams),
    texts: sentences.map((s) => s.text.toLowerCase()),
  });
}

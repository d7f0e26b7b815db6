import { resourceWords } from '../core/actions/resource-words.js';
import type { StagedAction } from '../core/staged-action.js';
import type { FieldConfig, TenantConfig } from '../core/tenant/tenant-config.js';
import { normalizeText, significantStems, stem, STOP_WORDS, wordsOf } from './text-normalize.js';

/**
 * Provenance of a staged action's key argument: is it supported by the contact's own words?
 * ("Plan-then-execute" in spirit: only the contact's request may choose an action; data a tool
 * read may not add one.) A flow is supported when its name or one of its keywords is in the
 * message (a prepared message likewise); a tag by its name or a significant word of its description; a field value when its
 * words (or number, or date) are in the message. Words are compared after a crude stem, and an
 * occurrence right after a negation ("no brochure", "don't send the brochure") does not count.
 *
 * An affirmative reply ("yes please") to the agent's previous message is supported by that
 * message's words: the contact saw the offer in plain text and accepted it.
 *
 * Limits: the match is lexical. Synonyms the tenant did not list as keywords are not recognised
 * (the turn escalates: fail closed); a poisoned instruction whose target happens to share a word
 * with the contact's message is supported (the instruction-pattern rules are the second line);
 * negation is recognised close to the word (`not … send … brochure` within five words; "already
 * have the brochure") or pointing back at it later in its sentence ("the brochure, no need to send
 * it"); a refusal that names it again in another sentence, or a paraphrase without a pronoun, is not.
 */
export interface ContactRequest {
  /** The contact's own message this turn. */
  text: string;
  /** The agent's previous message, when the contact's message is a short affirmative answer. */
  acceptedOffer?: string;
}

export type Support = { supported: true; why: string } | { supported: false; why: string };

/** Generic words that would make every description match. */
const GENERIC = new Set(['customer', 'contact', 'user', 'client', 'subscriber', 'person', 'people', 'member', 'account', 'thing', 'stuff', 'info', 'information', 'message']);
const NEGATORS = new Set(['not', 'no', 'never', "don't", 'dont', "doesn't", "didn't", "won't", "wouldn't", "isn't", "can't", 'cannot', 'without', 'stop', 'nothing', 'none', 'neither', 'nor']);
const ACTION_VERBS = new Set(['send', 'want', 'need', 'give', 'tag', 'add', 'set', 'put', 'record', 'sign', 'subscribe', 'like', 'get', 'share', 'mark', 'save', 'forward', 'show']);
const REMOVAL_CUE = /\b(?:remove|untag|unsubscribe|unsub|stop|cancel|opt(?:ing)? out|opt-out|delete|no longer|don't want|do not want|dont want|quit|leave|unfollow|take me off|off (?:the|your|this) list|not interested|turn off|unsign)\b/;
/**
 * The yes must end where a word ends: not followed by a letter or digit of any script. (`\b`
 * would be wrong here: it knows only ASCII word characters, so it never matched after "sí", "👍"
 * or "✅", and it matched inside "sían".)
 */
const AFFIRMATIVE = /^(?:yes|yeah|yep|yup|sure|ok|okay|please|pls|go ahead|sounds good|do it|why not|absolutely|definitely|of course|si|sí|oui|ja|sim|claro|👍|✅)(?![\p{L}\p{N}])/u;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const RELATIVE_DAYS = /\b(?:today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|next week|this week)\b/;

/** Words that point back at something just named ("no need to send it"). */
const BACK_REFERENCES = new Set(['it', 'that', 'this', 'them', 'those', 'one']);
/** "I already have the timetable": what the contact has is not what they ask for. */
const ALREADY_HAVE = new Set(['have', 'got', 'received', 'own']);

/** The request words prepared once per turn. */
interface PreparedText {
  normalized: string;
  words: string[];
  stems: string[];
  stemSet: Set<string>;
  /** The sentence (split at . ! ? ; and line ends) each word belongs to. */
  sentenceOf: number[];
}

function prepare(text: string): PreparedText {
  const words = wordsOf(text);
  const stems = words.map(stem);
  const normalized = normalizeText(text);
  // wordsOf splits at every non-letter, so the sentences' words are the text's words, in order.
  const sentenceOf = normalized.split(/[.!?;\n]/).flatMap((sentence, n) => wordsOf(sentence).map(() => n));
  return { normalized, words, stems, stemSet: new Set(stems), sentenceOf };
}

/** ("do not": its "not" is the negator.) */
const isNegator = (p: PreparedText, j: number) => NEGATORS.has(p.words[j] ?? '');
const isActionVerb = (p: PreparedText, k: number) => ACTION_VERBS.has(p.stems[k] ?? '') || ACTION_VERBS.has(p.words[k] ?? '');
const alreadyHave = (p: PreparedText, j: number) => p.words[j] === 'already' && ALREADY_HAVE.has(p.words[j + 1] ?? '');

/**
 * True when the word at `i` sits in a negation: right after a negator, or a negator then an
 * action verb before it ("don't send the brochure"); "already have" just before it ("I already
 * have the timetable"); or, later in the same sentence, a negator then an action verb on a word
 * that points back at it ("the timetable, no need to send it"; "…, don't want that one").
 */
function negatedAt(p: PreparedText, i: number): boolean {
  const prev = p.words[i - 1];
  if (prev && NEGATORS.has(prev)) return true;
  for (let j = Math.max(0, i - 5); j < i; j++) {
    if (!isNegator(p, j)) continue;
    for (let k = j + 1; k < i; k++) if (isActionVerb(p, k)) return true;
  }
  // "already got timetable", "already have the timetable".
  if (alreadyHave(p, i - 2) || alreadyHave(p, i - 3)) return true;
  // Later: a negator, an action verb within four words, and a word pointing back, all in the
  // word's sentence (the pronoun being in it, everything between is).
  for (let j = i + 1; j < p.words.length; j++) {
    if (!isNegator(p, j)) continue;
    for (let k = j + 1; k <= j + 4; k++) if (isActionVerb(p, k) && BACK_REFERENCES.has(p.words[k + 1] ?? '') && p.sentenceOf[k + 1] === p.sentenceOf[i]) return true;
  }
  return false;
}

/** A phrase (stems) is in the text when every stem is, and its first stem occurs un-negated at least once. */
function phraseIn(p: PreparedText, phrase: string[], checkNegation: boolean): boolean {
  if (!phrase.length || !phrase.every((s) => p.stemSet.has(s))) return false;
  if (!checkNegation) return true;
  for (let i = 0; i < p.stems.length; i++) if (p.stems[i] === phrase[0] && !negatedAt(p, i)) return true;
  return false;
}

function phraseOf(text: string): string[] {
  return wordsOf(text.replace(/[_-]+/g, ' '))
    .filter((w) => !STOP_WORDS.has(w))
    .map(stem);
}

function descriptionPhrases(description: string): string[][] {
  return [...significantStems(description)].filter((s) => !GENERIC.has(s)).map((s) => [s]);
}

/** Which of `phrases` the text supports (first match), or null. */
function firstSupported(p: PreparedText, phrases: string[][], checkNegation: boolean): string | null {
  for (const phrase of phrases) if (phraseIn(p, phrase, checkNegation)) return phrase.join(' ');
  return null;
}

function keyPhrases(action: StagedAction, config: TenantConfig): { what: string; phrases: string[][] } | { what: string; phrases: null; why: string } {
  switch (action.kind) {
    case 'send_flow': {
      const name = String(action.args.flowName ?? '');
      const flow = resourceWords(config, 'flow', name);
      if (!flow) return { what: `flow "${name}"`, phrases: null, why: 'it is not a configured flow' };
      const phrases = [phraseOf(flow.name), ...flow.keywords.map(phraseOf)];
      // A real model reads the description; when the tenant gave no keywords it is the only vocabulary.
      if (!flow.keywords.length) phrases.push(...descriptionPhrases(flow.description));
      return { what: `flow "${name}"`, phrases };
    }
    case 'send_content': {
      // Only a tenant's prepared message is the model's choice; the system's own messages are never staged by it.
      if (action.args.content === undefined) break;
      const name = String(action.args.content);
      const content = resourceWords(config, 'content', name);
      if (!content) return { what: `message "${name}"`, phrases: null, why: 'it is not a configured message' };
      const phrases = [phraseOf(content.name), ...content.keywords.map(phraseOf)];
      if (!content.keywords.length) phrases.push(...descriptionPhrases(content.description));
      return { what: `message "${name}"`, phrases };
    }
    case 'add_tag':
    case 'remove_tag': {
      const name = String(action.args.tag ?? '');
      const tag = resourceWords(config, 'tag', name);
      if (!tag) return { what: `tag "${name}"`, phrases: null, why: 'it is not a configured tag' };
      return { what: `tag "${name}"`, phrases: [phraseOf(tag.name), ...descriptionPhrases(tag.description)] };
    }
  }
  return { what: `${action.kind} action`, phrases: null, why: 'the model cannot stage this kind on a contact\'s request' };
}

function fieldValueSupport(p: PreparedText, action: StagedAction, field: FieldConfig): string | null {
  const value = action.args.value;
  switch (field.type) {
    case 'number': {
      const n = String(value);
      return new RegExp(`(?:^|[^0-9.])${n.replace('.', '\\.')}(?:$|[^0-9])`).test(p.normalized) ? n : null;
    }
    case 'boolean':
      // A yes/no field has no value words; the contact must at least name what it is about.
      return firstSupported(p, [phraseOf(field.name), ...descriptionPhrases(field.description)], typeof value === 'boolean' ? value : true);
    case 'date': {
      const iso = String(value);
      if (p.normalized.includes(iso)) return iso;
      const [y, m, d] = iso.split('-').map(Number);
      if (!y || !m || !d) return null;
      const day = new RegExp(`(?:^|[^0-9])0?${d}(?:st|nd|rd|th)?(?:$|[^0-9])`).test(p.normalized);
      const month = p.normalized.includes(MONTHS[m - 1]!) || p.normalized.includes(MONTHS[m - 1]!.slice(0, 3)) || new RegExp(`(?:^|[^0-9])0?${m}[/.-]|[/.-]0?${m}(?:$|[^0-9])`).test(p.normalized);
      if (day && month) return iso;
      return RELATIVE_DAYS.test(p.normalized) ? `${iso} (relative day)` : null;
    }
    case 'text': {
      const text = String(value);
      const phrase = phraseOf(text);
      if (phrase.length) return phraseIn(p, phrase, true) ? text : null;
      // Values with no significant word (a code, a single letter): a plain substring match.
      const plain = normalizeText(text);
      return plain && p.normalized.includes(plain) ? text : null;
    }
  }
}

function supportIn(p: PreparedText, action: StagedAction, config: TenantConfig): { ok: boolean; detail: string } {
  if (action.kind === 'set_field') {
    const field = String(action.args.field ?? '');
    const configured = config.fields.find((f) => f.name === field);
    if (!configured) return { ok: false, detail: `field "${field}" is not a configured field` };
    const hit = fieldValueSupport(p, action, configured);
    return hit ? { ok: true, detail: `value ${JSON.stringify(action.args.value)} for field "${field}" is in the contact's words (${hit})` } : { ok: false, detail: `value ${JSON.stringify(action.args.value)} for field "${field}" is not in the contact's words` };
  }
  const key = keyPhrases(action, config);
  if (!key.phrases) return { ok: false, detail: `${key.what}: ${key.why}` };
  if (action.kind === 'remove_tag' && !REMOVAL_CUE.test(p.normalized)) return { ok: false, detail: `${key.what}: the contact did not ask to remove or stop anything` };
  // The mirror: a message that asks to remove or stop something ("remove the interested tag",
  // "I'm not interested, please stop") names the tag to take it away, not to add it. Fail
  // closed: such a message that also asks for a tag goes to a human.
  if (action.kind === 'add_tag' && REMOVAL_CUE.test(p.normalized)) return { ok: false, detail: `${key.what}: the contact asks to remove or stop something, not to add a tag` };
  const hit = firstSupported(p, key.phrases, action.kind !== 'remove_tag');
  return hit ? { ok: true, detail: `${key.what} matches the contact's words ("${hit}")` } : { ok: false, detail: `${key.what} is not in the contact's words` };
}

/** Whether the contact's message is a short yes to the agent's previous message. */
export function isAffirmative(text: string): boolean {
  const normalized = normalizeText(text);
  const words = wordsOf(text);
  return words.length <= 8 && AFFIRMATIVE.test(normalized) && !words.some((w) => NEGATORS.has(w));
}

export class RequestSupport {
  private readonly own: PreparedText;
  private readonly offer: PreparedText | null;

  constructor(
    request: ContactRequest,
    private readonly config: TenantConfig,
  ) {
    this.own = prepare(request.text);
    this.offer = request.acceptedOffer ? prepare(request.acceptedOffer) : null;
  }

  check(action: StagedAction): Support {
    if (action.kind === 'add_tag' && this.config.guardrails.injection.unpromptedTags.includes(String(action.args.tag))) {
      return { supported: true, why: `tag "${String(action.args.tag)}" may be added without being asked (unpromptedTags)` };
    }
    const own = supportIn(this.own, action, this.config);
    if (own.ok) return { supported: true, why: own.detail };
    if (this.offer) {
      const offered = supportIn(this.offer, action, this.config);
      if (offered.ok) return { supported: true, why: `the contact accepted the agent's offer: ${offered.detail.replace("the contact's words", "the agent's previous message")}` };
    }
    return { supported: false, why: own.detail };
  }
}

import { actionKind } from '../core/actions/index.js';
import { RESOURCE_NOUN, resourceRef, resourceWords } from '../core/actions/resource-words.js';
import type { StagedAction } from '../core/staged-action.js';
import type { FieldConfig, TenantConfig } from '../core/tenant/tenant-config.js';
import { isShortNo, REMOVAL_CUE, REMOVAL_CUE_RAW, removalClauses, type RemovalClause } from './removal-cues.js';
import { readableAround, SERVED_FUNCTION_WORDS } from './served-words.js';
import { foldText, normalizeText, significantStems, stem, STOP_WORDS, wordsOf } from './text-normalize.js';

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

/**
 * `unreadable`: the contact's own message names the resource plainly, but in a sentence the
 * runtime cannot read (served-words.ts): it cannot tell a request from a refusal, so the contact
 * is asked, even where data the model read names it too (the contact's tap decides, not the data).
 */
export type Support = { supported: true; why: string } | { supported: false; why: string; unreadable?: true };

/** Generic words that would make every description match. */
const GENERIC = new Set([
  'customer',
  'contact',
  'user',
  'client',
  'subscriber',
  'person',
  'people',
  'member',
  'account',
  'thing',
  'stuff',
  'info',
  'information',
  'message',
]);
/**
 * Negators of the languages served, accents folded (wordsOf folds them): en; es "no, nunca, sin,
 * ni, tampoco"; pt "nao, nunca, sem, nem"; de "nicht, kein…, nie, ohne"; fr "pas, ne, jamais,
 * sans, non, plus"; it "non, mai, senza, ne"; tr "degil, yok, hayir"; id "tidak, tak, jangan,
 * bukan, belum, tanpa".
 */
const GENERIC_STEMS = new Set([...GENERIC].map(stem));
const NEGATORS = new Set([
  'not',
  'no',
  'never',
  "don't",
  'dont',
  "doesn't",
  "didn't",
  "won't",
  "wouldn't",
  "isn't",
  "can't",
  'cannot',
  'without',
  'stop',
  'nothing',
  'none',
  'neither',
  'nor',
  'nunca',
  'sin',
  'ni',
  'tampoco',
  'nada',
  'nao',
  'sem',
  'nem',
  'nicht',
  'kein',
  'keine',
  'keinen',
  'keinem',
  'keiner',
  'nie',
  'ohne',
  'nein',
  'nichts',
  'pas',
  'ne',
  "n'",
  'jamais',
  'sans',
  'non',
  'rien',
  'mai',
  'senza',
  'niente',
  'degil',
  'yok',
  'hayir',
  'istemiyorum',
  'istemem',
  'tidak',
  'tak',
  'jangan',
  'bukan',
  'belum',
  'tanpa',
  'gak',
  'nggak',
]);
/** Verbs of asking for something (stems and words), in the languages served. */
const ACTION_VERBS = new Set([
  'send',
  'want',
  'need',
  'give',
  'tag',
  'add',
  'set',
  'put',
  'record',
  'sign',
  'subscribe',
  'like',
  'get',
  'share',
  'mark',
  'save',
  'forward',
  'show',
  'quiero',
  'quiere',
  'quisiera',
  'necesito',
  'manda',
  'mandes',
  'mandar',
  'envia',
  'envies',
  'enviar',
  'enviame',
  'mandame',
  'pasame',
  'dame',
  'anade',
  'pon',
  'ponme',
  'apuntame',
  'guarda',
  'hace',
  'falta',
  'quero',
  'queria',
  'preciso',
  'mande',
  'envie',
  'adicione',
  'coloque',
  'salve',
  'will',
  'mochte',
  'brauche',
  'schick',
  'schicke',
  'schicken',
  'sende',
  'senden',
  'gib',
  'fuge',
  'trag',
  'speicher',
  'veux',
  'voudrais',
  'besoin',
  'envoie',
  'envoyer',
  'envoyez',
  'donne',
  'ajoute',
  'mets',
  'inscris',
  'enregistre',
  'voglio',
  'vorrei',
  'bisogno',
  'mandami',
  'inviami',
  'invia',
  'inviare',
  'mandare',
  'dammi',
  'aggiungi',
  'metti',
  'iscrivimi',
  'salva',
  'serve',
  'istiyorum',
  'gonder',
  'gonderin',
  'gondermeyin',
  'ekle',
  'kaydet',
  'lazim',
  'mau',
  'ingin',
  'minta',
  'kirim',
  'kirimkan',
  'butuh',
  'perlu',
  'tambahkan',
  'simpan',
  'daftarkan',
]);
/**
 * The yes must end where a word ends: not followed by a letter or digit of any script. (`\b`
 * would be wrong here: it knows only ASCII word characters, so it never matched after "sí", "👍"
 * or "✅", and it matched inside "sían".)
 */
const AFFIRMATIVE =
  /^(?:yes|yeah|yep|yup|sure|ok|okay|please|pls|go ahead|sounds good|do it|why not|absolutely|definitely|of course|si|sí|oui|ja|sim|claro|vale|dale|por favor|bitte|gerne|gern|genau|d'accord|volontiers|certo|certamente|va bene|evet|tabii|olur|tamam|lutfen|ya|iya|boleh|mau|tentu|👍|✅)(?![\p{L}\p{N}])/u;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const RELATIVE_DAYS =
  /\b(?:today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|next week|this week)\b/;

/** Words that point back at something just named ("no need to send it"; es "no me lo mandes"). */
const BACK_REFERENCES = new Set([
  'it',
  'that',
  'this',
  'them',
  'those',
  'one',
  'lo',
  'la',
  'los',
  'las',
  'le',
  'es',
  'ihn',
  'sie',
  'das',
  'o',
  'a',
  'os',
  'as',
  'ca',
  'cela',
  'onu',
  'bunu',
  'itu',
  'ini',
  'nya',
]);
/** "I already have the timetable": what the contact has is not what they ask for (es "ya tengo", de "habe schon", fr "j'ai deja"…). */
const ALREADY = new Set(['already', 'ya', 'ja', 'schon', 'bereits', 'deja', 'gia', 'zaten', 'sudah', 'udah']);
const ALREADY_HAVE = new Set([
  'have',
  'got',
  'received',
  'own',
  'tengo',
  'tenemos',
  'recibi',
  'tenho',
  'recebi',
  'habe',
  'hab',
  "j'ai",
  'ai',
  'recu',
  'ho',
  'ricevuto',
  'var',
  'aldim',
  'punya',
  'dapat',
  'terima',
  'menerima',
]);

const ACTION_STEMS = new Set([...ACTION_VERBS].map(stem));
/** Asking someone to do something, in a question ("can you…", "¿puedes…?", "kannst du…", "bisa…"). */
const POLITE_ASKS = new Set([
  'can',
  'could',
  'would',
  'will',
  'puedes',
  'puede',
  'podrias',
  'podria',
  'podes',
  'pode',
  'poderia',
  'kannst',
  'konnen',
  'konnten',
  'konntest',
  'pouvez',
  'peux',
  'pourriez',
  'pourrais',
  'puoi',
  'potresti',
  'potete',
  'misin',
  'musun',
  'misiniz',
  'musunuz',
  'bisa',
  'tolong',
  'boleh',
]);

const isNegatorWord = (word: string) => NEGATORS.has(word);
const isPoliteAskWord = (word: string) => POLITE_ASKS.has(word);

/** The request words prepared once per turn. */
interface PreparedText {
  normalized: string;
  words: string[];
  stems: string[];
  stemSet: Set<string>;
  /** The sentence (split at . ! ? ; and line ends) each word belongs to. */
  sentenceOf: number[];
  /** Per sentence: a question that asks for nothing (no verb of asking, no "can you…"): it is *about* a thing. */
  questionAbout: boolean[];
  /**
   * Per sentence: it holds a served-language negator. A naming in such a sentence that the
   * negation patterns do not place ("el brochure no, gracias", "pilates no, prefiero yoga", "I never
   * asked for the brochure") is not a plain request: the runtime cannot tell, and asks.
   */
  negatorIn: boolean[];
  /** The message has a short sentence that says no ("No thanks.", "no way", "Não, obrigado."). */
  saysNo: boolean;
}

/** The text's sentences, split after . ! ? ; and line ends (the marks stay with their sentence). */
function sentencesOf(normalized: string): string[] {
  return normalized.match(/[^.!?;\n]+[.!?;\n]*|[.!?;\n]+/g) ?? [];
}

function prepare(text: string): PreparedText {
  const words = wordsOf(text);
  const stems = words.map(stem);
  const normalized = normalizeText(text);
  // wordsOf splits at every non-letter, so the sentences' words are the text's words, in order.
  const sentences = sentencesOf(normalized).map((sentence) => ({
    sentence,
    words: wordsOf(sentence),
  }));
  const sentenceOf = sentences.flatMap((s, n) => s.words.map(() => n));
  const questionAbout = sentences.map(({ sentence, words: w }) => {
    const question = sentence.includes('?') || sentence.includes('¿');
    return (
      question && !w.some((word) => ACTION_VERBS.has(word) || ACTION_STEMS.has(stem(word)) || POLITE_ASKS.has(word))
    );
  });
  const negatorIn = sentences.map(({ words: w }) => w.some((word) => NEGATORS.has(word)));
  const saysNo = sentences.some(({ words: w }) => isShortNo(w, isNegatorWord));
  return { normalized, words, stems, stemSet: new Set(stems), sentenceOf, questionAbout, negatorIn, saysNo };
}

/** ("do not": its "not" is the negator.) */
const isNegator = (p: PreparedText, j: number) => NEGATORS.has(p.words[j] ?? '');
const isActionVerb = (p: PreparedText, k: number) =>
  ACTION_VERBS.has(p.stems[k] ?? '') || ACTION_VERBS.has(p.words[k] ?? '') || ACTION_STEMS.has(p.stems[k] ?? '');
const alreadyHave = (p: PreparedText, j: number) =>
  (ALREADY.has(p.words[j] ?? '') && ALREADY_HAVE.has(p.words[j + 1] ?? '')) ||
  (ALREADY_HAVE.has(p.words[j] ?? '') && ALREADY.has(p.words[j + 1] ?? ''));

/**
 * True when the word at `i` sits in a negation: right after a negator, or a negator then an
 * action verb before it ("don't send the brochure"); "already have" just before it ("I already
 * have the timetable"); or, later in the same sentence, a negator then an action verb on a word
 * that points back at it ("the timetable, no need to send it"; "…, don't want that one").
 */
/** Negators that close a German clause, and the words that may still follow them. */
const CLAUSE_FINAL_NEGATORS = new Set(['nicht']);
const TRAILING = new Set(['mehr', 'bitte', 'danke', 'jetzt']);

function negatedAt(p: PreparedText, i: number): boolean {
  const prev = p.words[i - 1];
  if (prev && NEGATORS.has(prev)) return true;
  for (let j = Math.max(0, i - 5); j < i; j++) {
    if (!isNegator(p, j)) continue;
    for (let k = j + 1; k < i; k++) if (isActionVerb(p, k)) return true;
  }
  // "already got timetable", "already have the timetable".
  if (alreadyHave(p, i - 2) || alreadyHave(p, i - 3)) return true;
  // German puts "nicht" at the end of the clause: "schickt mir die Broschüre nicht (mehr)". The
  // negator within three words after the phrase word, with nothing but politeness after it.
  for (let j = i + 1; j <= i + 3; j++) {
    if (!CLAUSE_FINAL_NEGATORS.has(p.words[j] ?? '') || p.sentenceOf[j] !== p.sentenceOf[i]) continue;
    let end = j + 1;
    while (end < p.words.length && p.sentenceOf[end] === p.sentenceOf[i] && TRAILING.has(p.words[end]!)) end++;
    if (end >= p.words.length || p.sentenceOf[end] !== p.sentenceOf[i]) return true;
  }
  // Later: a negator, an action verb within four words, and a word pointing back, all in the
  // word's sentence (the pronoun being in it, everything between is).
  for (let j = i + 1; j < p.words.length; j++) {
    if (!isNegator(p, j)) continue;
    for (let k = j + 1; k <= j + 4; k++)
      if (isActionVerb(p, k) && BACK_REFERENCES.has(p.words[k + 1] ?? '') && p.sentenceOf[k + 1] === p.sentenceOf[i])
        return true;
  }
  return false;
}

/**
 * How a phrase must occur: `any` (a removal names what it removes, negated or not), `affirmed`
 * (not negated), `requested` (not negated, and not only in a question about it: "is the premium
 * area open?" asks nothing of the premium tag).
 */
type Reading = 'any' | 'affirmed' | 'requested';

/** Every word the request lexicon knows, in any served language: the function words and the cues above. */
const LEXICON_WORDS: ReadonlySet<string> = new Set([
  ...SERVED_FUNCTION_WORDS,
  ...STOP_WORDS,
  ...GENERIC,
  ...NEGATORS,
  ...ACTION_VERBS,
  ...POLITE_ASKS,
  ...ALREADY,
  ...ALREADY_HAVE,
  ...BACK_REFERENCES,
  ...MONTHS,
]);
const lexiconKnows = (word: string) =>
  LEXICON_WORDS.has(word) || ACTION_STEMS.has(stem(word)) || RELATIVE_DAYS.test(word) || REMOVAL_CUE_RAW.test(word);

/**
 * Whether the words of sentence `n` other than `phrase` are readable (served-words.ts): a naming in
 * a sentence the runtime cannot read ("geen newsletter alsjeblieft") is not a request it can
 * vouch for.
 */
function sentenceReadable(p: PreparedText, n: number, phrase: readonly string[]): boolean {
  const others: string[] = [];
  for (let j = 0; j < p.words.length; j++)
    if (p.sentenceOf[j] === n && !phrase.includes(p.stems[j]!)) others.push(p.words[j]!);
  return readableAround(others, lexiconKnows);
}

/**
 * A phrase (stems) is in the text when every stem is, and its first stem occurs as `reading` asks
 * at least once; with `readable`, in a sentence whose other words the runtime can read.
 */
function phraseIn(p: PreparedText, phrase: string[], reading: Reading, readable = false): boolean {
  if (!phrase.length || !phrase.every((s) => p.stemSet.has(s))) return false;
  if (reading === 'any' && !readable) return true;
  for (let i = 0; i < p.stems.length; i++) {
    if (p.stems[i] !== phrase[0]) continue;
    if (reading !== 'any' && negatedAt(p, i)) continue;
    if (reading === 'requested' && p.questionAbout[p.sentenceOf[i] ?? -1]) continue;
    if (readable && !sentenceReadable(p, p.sentenceOf[i] ?? -1, phrase)) continue;
    // A request must be plain: no negation the patterns above did not place, in its sentence or
    // said on its own ("the brochure? no thanks"). A removal names what it refuses ('any').
    if (readable && reading !== 'any' && (p.negatorIn[p.sentenceOf[i] ?? -1] || p.saysNo)) continue;
    return true;
  }
  return false;
}

function phraseOf(text: string): string[] {
  return wordsOf(text.replace(/[_-]+/g, ' '))
    .filter((w) => !STOP_WORDS.has(w))
    .map(stem);
}

function descriptionPhrases(description: string): string[][] {
  return [...significantStems(description)].filter((s) => !GENERIC_STEMS.has(s)).map((s) => [s]);
}

/** Which of `phrases` the text supports (first match), or null; `readable` as in phraseIn. */
function firstSupported(p: PreparedText, phrases: string[][], reading: Reading, readable = false): string | null {
  for (const phrase of phrases) if (phraseIn(p, phrase, reading, readable)) return phrase.join(' ');
  return null;
}

/**
 * The phrases that name what a stageable action acts on, read from its resource's words
 * (core/actions/resource-words.ts: name, keywords, else the description's words). No kind is
 * named: the kind says its resource, the resource its words.
 */
function keyPhrases(
  action: StagedAction,
  config: TenantConfig,
): { what: string; phrases: string[][] } | { what: string; phrases: null; why: string } {
  const kind = actionKind(action.kind);
  const cannot = {
    what: `${action.kind} action`,
    phrases: null,
    why: "the model cannot stage this kind on a contact's request",
  };
  if (!kind.stageable) return cannot;
  // Arguments that do not parse name nothing (the kind says what is wrong with them).
  const parsed = kind.parseArgs(action.args);
  if (!parsed.ok) return { ...cannot, why: parsed.problem };
  // System content (a message with no resource) is never the contact's request.
  const ref = resourceRef(kind.resource(action.args));
  if (!ref) return cannot;
  const noun = RESOURCE_NOUN[ref.type];
  const what = `${noun} "${ref.name}"`;
  const words = resourceWords(config, ref.type, ref.name);
  if (!words) return { what, phrases: null, why: `it is not a configured ${noun}` };
  const phrases = [phraseOf(words.name), ...words.keywords.map(phraseOf)];
  // A real model reads the description; when the tenant gave no keywords it is the only vocabulary.
  if (!words.keywords.length) phrases.push(...descriptionPhrases(words.description));
  return { what, phrases };
}

function fieldValueSupport(
  p: PreparedText,
  action: StagedAction,
  field: FieldConfig,
  readable: boolean,
): string | null {
  const value = action.args.value;
  switch (field.type) {
    case 'number': {
      const n = String(value);
      return new RegExp(`(?:^|[^0-9.])${n.replace('.', '\\.')}(?:$|[^0-9])`).test(p.normalized) ? n : null;
    }
    case 'boolean':
      // A yes/no field has no value words; the contact must at least name what it is about.
      return firstSupported(
        p,
        [phraseOf(field.name), ...descriptionPhrases(field.description)],
        value === false ? 'any' : 'requested',
        readable,
      );
    case 'date': {
      const iso = String(value);
      if (p.normalized.includes(iso)) return iso;
      const [y, m, d] = iso.split('-').map(Number);
      if (!y || !m || !d) return null;
      const day = new RegExp(`(?:^|[^0-9])0?${d}(?:st|nd|rd|th)?(?:$|[^0-9])`).test(p.normalized);
      const month =
        p.normalized.includes(MONTHS[m - 1]!) ||
        p.normalized.includes(MONTHS[m - 1]!.slice(0, 3)) ||
        new RegExp(`(?:^|[^0-9])0?${m}[/.-]|[/.-]0?${m}(?:$|[^0-9])`).test(p.normalized);
      if (day && month) return iso;
      return RELATIVE_DAYS.test(p.normalized) ? `${iso} (relative day)` : null;
    }
    case 'text': {
      const text = String(value);
      const phrase = phraseOf(text);
      if (phrase.length) return phraseIn(p, phrase, 'requested', readable) ? text : null;
      // Values with no significant word (a code, a single letter): a plain substring match.
      const plain = normalizeText(text);
      return plain && p.normalized.includes(plain) ? text : null;
    }
  }
}

/** The clauses (removal-cues.ts) that name one of `phrases`. */
function namingClauses(clauses: readonly RemovalClause[], phrases: readonly string[][]): RemovalClause[] {
  return clauses.filter((c) => {
    const p = prepare(c.text);
    return phrases.some((phrase) => phraseIn(p, phrase, 'any'));
  });
}

/**
 * Why the contact's words do not ask to remove the tag `phrases` name, or null when they may: no
 * clause asks plainly to remove or stop something, or a clause naming the tag refuses the removal
 * or is one the runtime cannot read either way ("don't remove the VIP tag, remove the newsletter"
 * asks for one removal, not the other).
 */
function removalRefused(p: PreparedText, phrases: readonly string[][]): string | null {
  const clauses = removalClauses(p.normalized, isNegatorWord, isPoliteAskWord);
  if (!clauses.some((c) => c.stance === 'remove')) {
    if (clauses.some((c) => c.stance === 'keep')) return 'the contact says not to remove it';
    if (clauses.some((c) => c.stance === 'unsure'))
      return "the contact's words about removing are not plain (a negation the runtime cannot place)";
    return 'the contact did not ask to remove or stop anything';
  }
  const naming = namingClauses(clauses, phrases);
  if (naming.some((c) => c.stance === 'keep')) return 'the contact says not to remove it';
  if (naming.some((c) => c.stance === 'unsure'))
    return "the contact's words about removing it are not plain (a negation the runtime cannot place)";
  return null;
}

/**
 * Whether `p` asks for the action. `readable`: the naming must sit in a sentence the runtime can
 * read (the contact's own message; the agent's offer a contact said yes to is the product's words).
 */
function supportIn(
  p: PreparedText,
  action: StagedAction,
  config: TenantConfig,
  readable: boolean,
): { ok: boolean; detail: string; unreadable?: true } {
  if (action.kind === 'set_field') {
    const field = String(action.args.field ?? '');
    const configured = config.fields.find((f) => f.name === field);
    if (!configured) return { ok: false, detail: `field "${field}" is not a configured field` };
    const value = JSON.stringify(action.args.value);
    const hit = fieldValueSupport(p, action, configured, readable);
    if (hit) return { ok: true, detail: `value ${value} for field "${field}" is in the contact's words (${hit})` };
    const unread = readable ? fieldValueSupport(p, action, configured, false) : null;
    return unread
      ? {
          ok: false,
          detail: `value ${value} for field "${field}" is named ("${unread}") in words the runtime cannot read as a request (not a language it serves, or a negation it cannot place)`,
          unreadable: true,
        }
      : { ok: false, detail: `value ${value} for field "${field}" is not in the contact's words` };
  }
  const key = keyPhrases(action, config);
  if (!key.phrases) return { ok: false, detail: `${key.what}: ${key.why}` };
  if (action.kind === 'remove_tag') {
    const refused = removalRefused(p, key.phrases);
    if (refused) return { ok: false, detail: `${key.what}: ${refused}` };
  }
  // The mirror: a message that asks to remove or stop something ("remove the interested tag",
  // "I'm not interested, please stop") names the tag to take it away, not to add it. Fail
  // closed: such a message that also asks for a tag goes to a human.
  if (action.kind === 'add_tag' && REMOVAL_CUE.test(p.normalized))
    return { ok: false, detail: `${key.what}: the contact asks to remove or stop something, not to add a tag` };
  // A message that asks to stop or leave something does not ask to be sent something it names
  // ("unsubscribe me from the promo messages", "deja de mandarme el horario").
  if ((action.kind === 'send_flow' || action.kind === 'send_content') && REMOVAL_CUE.test(p.normalized))
    return { ok: false, detail: `${key.what}: the contact asks to stop or remove something, not to be sent it` };
  // Sends answer questions ("what are your prices?" → the price list). A tag's own name in a
  // question is asked about, not for ("is the premium area open?"); its description says when the
  // tenant wants it added ("asked about classes or prices"), so a question may meet that.
  const [name, ...rest] = key.phrases;
  const named = (inReadable: boolean) =>
    action.kind === 'remove_tag'
      ? firstSupported(p, key.phrases, 'any', inReadable)
      : action.kind === 'add_tag'
        ? (firstSupported(p, name ? [name] : [], 'requested', inReadable) ??
          firstSupported(p, rest, 'affirmed', inReadable))
        : firstSupported(p, key.phrases, 'affirmed', inReadable);
  const hit = named(readable);
  if (hit) return { ok: true, detail: `${key.what} matches the contact's words ("${hit}")` };
  const unread = readable ? named(false) : null;
  return unread
    ? {
        ok: false,
        detail: `${key.what} is named ("${unread}") in words the runtime cannot read as a request (not a language it serves, or a negation it cannot place)`,
        unreadable: true,
      }
    : { ok: false, detail: `${key.what} is not in the contact's words` };
}

/** Whether the contact's message is a short yes to the agent's previous message. */
export function isAffirmative(text: string): boolean {
  const normalized = foldText(text);
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
    if (
      action.kind === 'add_tag' &&
      this.config.guardrails.injection.unpromptedTags.includes(String(action.args.tag))
    ) {
      return {
        supported: true,
        why: `tag "${String(action.args.tag)}" may be added without being asked (unpromptedTags)`,
      };
    }
    const own = supportIn(this.own, action, this.config, true);
    if (own.ok) return { supported: true, why: own.detail };
    if (this.offer) {
      const offered = supportIn(this.offer, action, this.config, false);
      if (offered.ok)
        return {
          supported: true,
          why: `the contact accepted the agent's offer: ${offered.detail.replace("the contact's words", "the agent's previous message")}`,
        };
    }
    return { supported: false, why: own.detail, ...(own.unreadable ? { unreadable: true as const } : {}) };
  }
}

/**
 * Whether `text` (data the model read) names what the action acts on: the flow's or message's
 * name, keywords or description words, the tag's name or description words, the value a field is
 * set to. Negation and questions do not matter here: data that names a thing may have chosen it.
 */
export function mentionedIn(text: string, action: StagedAction, config: TenantConfig): boolean {
  const p = prepare(text);
  const phrases = namingPhrases(action, config);
  if (phrases) return phrases.some((phrase) => phraseIn(p, phrase, 'any'));
  // A field value with no significant word (a code, a single letter): a plain substring match.
  const value = action.kind === 'set_field' && typeof action.args.value === 'string' ? action.args.value : '';
  return Boolean(normalizeText(value)) && p.normalized.includes(normalizeText(value));
}

/**
 * The phrases that name what the action acts on: a field's string value, else the resource's
 * words (keyPhrases). Null when there are none to read (a non-string or wordless value, a
 * resource the config does not have).
 */
function namingPhrases(action: StagedAction, config: TenantConfig): string[][] | null {
  if (action.kind === 'set_field') {
    const value = action.args.value;
    if (typeof value !== 'string') return null;
    const phrase = phraseOf(value);
    return phrase.length ? [phrase] : null;
  }
  return keyPhrases(action, config).phrases;
}

/**
 * Whether the contact's own words name what the action acts on only to say no to it: every
 * naming is negated or sits in a question about it, or the message asks to remove or stop
 * something while the action adds or sends. False when the words do not name it at all, and
 * false when they name it plainly with a verb this lexicon does not know ("take the interested tag
 * off my profile", "nimm mir das Interessiert-Tag weg"): there the runtime cannot tell, and the
 * contact is asked (request-provenance.ts), never refused on one language's word list. A field
 * value with no significant word has no negation to read: named is not declined.
 */
export function contactDeclines(text: string, action: StagedAction, config: TenantConfig): boolean {
  const phrases = namingPhrases(action, config);
  if (!phrases) return false;
  const p = prepare(text);
  if (!phrases.some((phrase) => phraseIn(p, phrase, 'any'))) return false;
  // A removal is declined only where every clause naming the tag refuses a removal ("don't
  // remove the VIP tag"). A negated naming is no refusal here: "no more newsletter" asks for it.
  if (action.kind === 'remove_tag') {
    const naming = namingClauses(removalClauses(p.normalized, isNegatorWord, isPoliteAskWord), phrases);
    if (naming.length > 0 && naming.every((c) => c.stance === 'keep')) return true;
    // Only asked about ("what does interested mean on my profile?") is still no request.
    return !phrases.some((phrase) => namedOutsideQuestions(p, phrase) || askedInUnreadableSentence(p, phrase));
  }
  // A removal or stop declines what its own sentence names. One in another sentence ("Add me to
  // the newsletter. I don't want to miss anything!") leaves this naming plain: the runtime cannot
  // tell, and the contact is asked (the write is still unsupported, so never committed silently).
  if (action.kind === 'add_tag' || action.kind === 'send_flow' || action.kind === 'send_content') {
    const declines = sentencesOf(p.normalized).some(
      (sentence) => REMOVAL_CUE.test(sentence) && phrases.some((phrase) => phraseIn(prepare(sentence), phrase, 'any')),
    );
    if (declines) return true;
  }
  // Read as support reads it: a send may be asked for in a question ("do you have the timetable,
  // or no?"), a tag or a field value may not.
  const reading: Reading = action.kind === 'send_flow' || action.kind === 'send_content' ? 'affirmed' : 'requested';
  return !phrases.some((phrase) => phraseIn(p, phrase, reading) || askedInUnreadableSentence(p, phrase));
}

/** Whether `phrase` is named, negated or not, in a sentence that is not a question about it. */
function namedOutsideQuestions(p: PreparedText, phrase: string[]): boolean {
  if (!phrase.length || !phrase.every((s) => p.stemSet.has(s))) return false;
  return p.stems.some((s, i) => s === phrase[0] && !p.questionAbout[p.sentenceOf[i] ?? -1]);
}

/**
 * A naming in a question the runtime cannot read ("Kan ik de brochure krijgen?"): whether it asks
 * for the thing or only about it is told by the verbs of asking, which are served-language words.
 * Not negated by any negator the lexicon knows, it is "cannot tell", not a no.
 */
function askedInUnreadableSentence(p: PreparedText, phrase: string[]): boolean {
  if (!phrase.length || !phrase.every((s) => p.stemSet.has(s))) return false;
  for (let i = 0; i < p.stems.length; i++) {
    const n = p.sentenceOf[i] ?? -1;
    if (p.stems[i] !== phrase[0] || negatedAt(p, i) || !p.questionAbout[n]) continue;
    if (!sentenceReadable(p, n, phrase)) return true;
  }
  return false;
}

/** Whether the significant words of `words` (a refused call's arguments) are in `text`. */
export function mentionedWords(text: string, words: string): boolean {
  // No words left (only common ones): phraseIn is false for an empty phrase.
  return phraseIn(prepare(text), phraseOf(words), 'any');
}

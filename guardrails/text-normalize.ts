/**
 * Text normalisation shared by the text-reading guardrails. Untrusted text is normalised before
 * any pattern runs, so trivial disguises (full-width letters, zero-width joiners, odd quotes,
 * line breaks inside a phrase) do not slip past a pattern written in plain ASCII.
 */

/** Zero-width and invisible format characters attackers insert to split trigger words. */
const INVISIBLE =
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]/g;

/**
 * NFKC, invisible characters removed, quotes unified, lower case, runs of spaces collapsed. Line
 * breaks are kept (as single `\n`): a fake "SYSTEM:" header is recognised by starting a line.
 */
export function normalizeText(text: string): string {
  return normalizeKeepCase(text).toLowerCase();
}

/**
 * The last few texts each normalisation was asked for, and its answer. A turn's guardrails read
 * the same few strings (the contact's message, the reply, its captions) and each normalised them
 * again: the same NFKC pass and regex chain up to a dozen times a turn. The functions are pure, so
 * an answer found here is the one computing it would give. Bounded in count and text length;
 * cleared when full (a turn's own texts are put back by its first guardrail).
 */
class RecentTexts {
  private readonly answers = new Map<string, string>();
  constructor(private readonly compute: (text: string) => string) {}

  get(text: string): string {
    if (text.length > MEMO_MAX_CHARS) return this.compute(text);
    let answer = this.answers.get(text);
    if (answer === undefined) {
      if (this.answers.size >= MEMO_ENTRIES) this.answers.clear();
      answer = this.compute(text);
      this.answers.set(text, answer);
    }
    return answer;
  }
}
const MEMO_ENTRIES = 32;
const MEMO_MAX_CHARS = 4096;

/** normalizeText without the lower-casing, for the few patterns where case is the signal. */
export function normalizeKeepCase(text: string): string {
  return keepCaseMemo.get(text);
}
const keepCaseMemo = new RecentTexts(computeKeepCase);

function computeKeepCase(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(/[\u2018\u2019\u201A\u201B\u2032\u00B4`]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033]/g, '"')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n[\s]*/g, '\n')
    .trim();
}

const LEET: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '!': 'i',
};

/** A second reading of normalised text with common digit/symbol-for-letter swaps undone. */
export function unLeet(normalized: string): string {
  // Only inside words: "1gn0re" becomes "ignore", but "at 10:00" keeps its digits' neighbours.
  return normalized.replace(/[a-z0-9@$!]+/g, (w) =>
    /[a-z]/.test(w) && /[0-9@$!]/.test(w) ? w.replace(/[013457@$!]/g, (c) => LEET[c] ?? c) : w,
  );
}

/**
 * Cyrillic and Greek letters that look like Latin ones (Unicode's confusables, the common lower
 * case ones): "guаranteed" with a Cyrillic "а" reads "guaranteed". NFKC leaves them apart.
 */
const CONFUSABLE: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ӏ: 'l',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  α: 'a',
  β: 'b',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ϲ: 'c',
};
const CONFUSABLE_CLASS = `[${Object.keys(CONFUSABLE).join('')}]`;
const CONFUSABLE_ALL = new RegExp(CONFUSABLE_CLASS, 'gu');
const HAS_CONFUSABLE = new RegExp(CONFUSABLE_CLASS, 'u');

/**
 * A second reading of normalised text with look-alike letters folded to Latin, for matching
 * patterns written in Latin letters. Only letters inside a word that also has Latin letters are
 * folded: a word written wholly in Cyrillic or Greek is left as it is.
 */
export function unConfuse(normalized: string): string {
  return normalized.replace(/[\p{L}\p{M}]+/gu, (w) =>
    /[a-z]/.test(w) && HAS_CONFUSABLE.test(w) ? w.replace(CONFUSABLE_ALL, (c) => CONFUSABLE[c] ?? c) : w,
  );
}

/**
 * Normalised text without diacritics (NFKD, combining marks removed): "está", "ESTÁ" and "esta"
 * read alike, and so do "Übersicht" and "ubersicht", "İptal" and "iptal". Words are compared on this.
 */
export function foldText(text: string): string {
  return foldMemo.get(text);
}
const foldMemo = new RecentTexts(computeFold);

function computeFold(text: string): string {
  // Turkish dotless ı has no decomposition; folded to i so "fiyatları" and "fiyatlari" meet.
  // (One mark at a time: with the g flag a run is removed either way.)
  return normalizeText(text).normalize('NFKD').replace(/\p{M}/gu, '').replace(/ı/g, 'i').normalize('NFC');
}

/** Normalised words, accents folded: letters and digits, apostrophes kept inside a word ("don't"). */
export function wordsOf(text: string): string[] {
  return foldText(text)
    .split(/[^\p{L}\p{N}']+/u)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter(Boolean);
}

/**
 * Inflections of the other languages the product serves, longest first: plural and gender endings
 * (es/pt/it/fr "folletos", "precios", "horários"), German case and plural endings ("Preise",
 * "Stundenplans"), Turkish case/plural/possessive suffixes ("broşürü", "fiyatları", "videoyu") and
 * Indonesian suffixes ("jadwalnya", "kirimkan"). Stripped only from words long enough to keep a
 * stem of four letters, so short words stay whole.
 */
const SUFFIXES = [
  'lerini',
  'larini',
  'lerin',
  'larin',
  'leri',
  'lari',
  'ler',
  'lar',
  'nya',
  'kan',
  'yu',
  'yi',
  'nu',
  'ni',
  'es',
  'os',
  'as',
  'en',
  'er',
  'ns',
  'n',
  's',
  'o',
  'a',
  'e',
  'i',
  'u',
];

/**
 * A crude stem so "prices", "pricing" and "price" meet, and "folleto"/"folletos",
 * "Preis"/"Preise", "broşür"/"broşürü" (accents are folded first). Not a linguistic stemmer: it
 * only has to make a contact's word and a configured name agree often enough; where it does not,
 * the runtime asks the contact to confirm rather than guess.
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length <= 3) return w;
  // English first ("prices" → "pric"), then one ending of the other languages on what is left, so
  // a plural and its singular meet whichever rule took the plural ("precios" → "precio" → "preci").
  // Two endings at most: a Turkish case on a loanword's own vowel ("videoyu" → "video" → "vide").
  let stemmed = englishStem(w);
  for (let round = 0; round < 2; round++) {
    // "class", "address": a double s is the word's own, not a plural.
    const suffix = SUFFIXES.find(
      (x) => stemmed.endsWith(x) && stemmed.length - x.length >= 4 && !stemmed.endsWith(`s${x}`),
    );
    if (!suffix) break;
    stemmed = stemmed.slice(0, -suffix.length);
  }
  return stemmed;
}

function englishStem(word: string): string {
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith('es') && w.length > 4 && /(ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && w.length > 3) w = w.slice(0, -1);
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** Words too common to show what a message is about. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if of in on at to for from by with without about as into onto over under up down out off ' +
    'is are was were be been being am do does did done have has had having will would shall should can could may might must ' +
    'i me my mine we us our you your yours he him his she her they them their it its this that these those there here ' +
    'what which who whom whose when where why how all any some no not nor so than too very just also only ' +
    'please thanks thank hi hello hey ok okay yes yeah want wants wanted like need needs get got give send sent asked ask ' +
    'new week day one two more most much many'
  ).split(' '),
);

/** Stems of the significant words of a text (stop words and words under 3 characters dropped). */
export function significantStems(text: string): Set<string> {
  return new Set(
    wordsOf(text)
      .filter((w) => w.length >= 3 && !STOP_WORDS.has(w))
      .map(stem),
  );
}

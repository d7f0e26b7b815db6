/**
 * Word-level text matching for the offline rule model. Everything is lower-cased and split on
 * anything that is not a letter or digit, so "Brochure!", "brochure," and "BROCHURE" all match,
 * while "personal" never matches "person" (whole words only).
 */

/** The words of a text, lower-cased, in order. Underscores split words so `price_list` reads as "price list". */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** One word matches a pattern word exactly or as its plain plural ("brochures", "boxes"). */
function wordMatches(word: string, pattern: string): boolean {
  return word === pattern || word === `${pattern}s` || word === `${pattern}es`;
}

/** Index where `phrase` (a word or several) starts in `textWords`, or -1. */
export function findPhrase(textWords: readonly string[], phrase: string): number {
  const patternWords = words(phrase);
  if (patternWords.length === 0) return -1;
  for (let start = 0; start + patternWords.length <= textWords.length; start++) {
    if (patternWords.every((p, i) => wordMatches(textWords[start + i] ?? '', p))) return start;
  }
  return -1;
}

export function containsPhrase(textWords: readonly string[], phrase: string): boolean {
  return findPhrase(textWords, phrase) >= 0;
}

/**
 * Common English words that carry no topic. Kept short on purpose: the FAQ rule needs two shared
 * *topic* words, and a long list would hide real ones.
 */
const STOP_WORDS = new Set([
  'the',
  'and',
  'for',
  'are',
  'but',
  'not',
  'you',
  'your',
  'yours',
  'all',
  'any',
  'can',
  'could',
  'had',
  'has',
  'have',
  'her',
  'him',
  'his',
  'how',
  'its',
  'may',
  'our',
  'ours',
  'out',
  'she',
  'they',
  'them',
  'their',
  'this',
  'that',
  'these',
  'those',
  'was',
  'were',
  'what',
  'when',
  'where',
  'which',
  'who',
  'whom',
  'why',
  'will',
  'with',
  'would',
  'should',
  'shall',
  'from',
  'into',
  'about',
  'there',
  'here',
  'then',
  'than',
  'does',
  'did',
  'doing',
  'done',
  'been',
  'being',
  'get',
  'got',
  'just',
  'also',
  'too',
  'very',
  'much',
  'many',
  'some',
  'more',
  'most',
  'own',
  'same',
  'such',
  'only',
  'off',
  'over',
  'under',
  'again',
  'once',
  'please',
  'thanks',
  'thank',
  'hello',
  'hey',
  'want',
  'like',
  'need',
  'know',
  'tell',
  'let',
  'one',
  'yes',
  'okay',
  'ok',
  'hi',
  'is',
  'me',
  'my',
  'mine',
  'we',
  'us',
  'do',
  'an',
  'a',
  'to',
  'of',
  'in',
  'on',
  'at',
  'by',
  'or',
  'if',
  'it',
  'be',
  'so',
  'as',
  'no',
  'up',
  'am',
  'i',
]);

/** Topic words: at least three characters and not a stop word. */
export function significantWords(text: string): Set<string> {
  return new Set(words(text).filter((w) => w.length >= 3 && !STOP_WORDS.has(w)));
}

/** How many significant words two texts share. */
export function sharedSignificantWords(a: string, b: string): number {
  const left = significantWords(a);
  let shared = 0;
  for (const w of significantWords(b)) if (left.has(w)) shared++;
  return shared;
}

/** Whitespace-separated words: the offline model's stand-in for tokens in `usage`. */
export function countTokens(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/** 32-bit FNV-1a as 8 hex digits: a short deterministic fingerprint (not security). */
export function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

import { fc } from '@fast-check/vitest';

/**
 * Strings from outside, as a fuzzer sends them. fast-check's `binary` unit never produces a half
 * surrogate, so lone surrogates are made here and spliced in on purpose.
 */

/** Strings that have broken parsers, encoders and key builders before. All well-formed. */
export const EDGE_STRINGS = [
  '\ufeff', // BOM (JS trim() strips it)
  'a\u0000b', // NUL
  '\u202egnp.exe', // right-to-left override
  'e\u0301', // combining accent
  '👩‍👩‍👧', // ZWJ sequence
  '\uffff',
  '\ufffd',
  '𝕏', // astral: a surrogate pair
  '\u2028\u2029', // JS line terminators that are not JSON's
  '"\\', // JSON metacharacters
  '{}[]',
  '%00',
  '%E0%A4%A',
  '../..',
  'a/b',
  '\u00a0',
  '<script>',
  '🙂'.repeat(30),
] as const;

export const edgeString = fc.constantFrom(...EDGE_STRINGS);

/** Whitespace by JS `trim()` (the webhook's blank-text rule). */
export const JS_WHITESPACE = [
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2009',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
] as const;

export const blankString = fc
  .array(fc.constantFrom(...JS_WHITESPACE), { minLength: 0, maxLength: 6 })
  .map((parts) => parts.join(''));

/** A well-formed string of at most `maxLength` UTF-16 units: any code point, graphemes, or an edge case. */
export function wellFormedString(maxLength: number, minLength = 0): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: Math.min(maxLength, 40) }) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 20) }) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.string({ maxLength: 8 }), edgeString, fc.string({ maxLength: 8 }))
          .map((p) => p.join('')),
      },
    )
    .filter((s) => s.length >= minLength && s.length <= maxLength && s.isWellFormed());
}

/** Non-blank well-formed text (a message). */
export function messageText(maxLength: number): fc.Arbitrary<string> {
  return wellFormedString(maxLength, 1).filter((s) => s.trim() !== '');
}

export const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((cc) => String.fromCharCode(cc));

/**
 * `base` with a lone surrogate spliced in. Never well-formed: a high one is followed by no low
 * one of its own, a low one steals or lacks its partner (base's pairs stay broken either way).
 */
export function withLoneSurrogate(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(base, loneSurrogate, fc.nat())
    .map(([s, lone, at]) => {
      const i = s.length === 0 ? 0 : at % (s.length + 1);
      return s.slice(0, i) + lone + s.slice(i);
    })
    .filter((s) => !s.isWellFormed());
}

/** JSON values whose strings (keys included) are any well-formed code points, nested at most `maxDepth`. */
export function wellFormedJson(maxDepth: number): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth, stringUnit: 'binary' });
}

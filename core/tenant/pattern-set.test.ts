import { describe, expect, it } from 'vitest';
import { RE2Set } from 're2js';
import { abText } from '../../test/support/ab-text.js';
import { compilePatternSet, freshBudget, isRe2jsDfa, TURN_MATCHER_WORK } from './pattern-set.js';

const real = [
  { source: String.raw`[\w.+-]+@[\w-]+\.[\w.]+`, caseInsensitive: false },
  { source: String.raw`\b\d{3}-\d{2}-\d{4}\b`, caseInsensitive: false },
  { source: String.raw`\+?\d[\d\s-]{7,14}\d`, caseInsensitive: false },
  { source: String.raw`[A-Z]{2}\d{2}[A-Z0-9]{11,30}`, caseInsensitive: true },
];

describe('a bounded pattern set (the DFA behind the PII guardrail)', () => {
  it('reports which patterns match, by index, with each pattern’s own case flag', () => {
    const set = compilePatternSet(real);
    expect(set.search('write to ana@studio.es', freshBudget())).toEqual({ finished: true, matched: [0] });
    // The phone pattern takes an SSN too.
    expect(set.search('ssn 123-45-6789, iban de89-ab', freshBudget())).toEqual({ finished: true, matched: [1, 2] });
    expect(set.search('iban DE89ABCDEFGHIJKLMN', freshBudget())).toEqual({ finished: true, matched: [3] });
    const caseSensitive = compilePatternSet([{ source: 'ABC', caseInsensitive: false }]);
    expect(caseSensitive.search('abc', freshBudget())).toEqual({ finished: true, matched: [] });
    expect(compilePatternSet([{ source: 'ABC', caseInsensitive: true }]).search('abc', freshBudget())).toEqual({
      finished: true,
      matched: [0],
    });
  });

  it('an ordinary 4,000-character reply costs a fraction of the turn budget', () => {
    const reply =
      'Hola! Tu clase de pilates es el martes 12 a las 18:30. Escríbenos a info@studio.es o llama al +34 600 123 456. '
        .repeat(40)
        .slice(0, 4000);
    const budget = freshBudget();
    expect(compilePatternSet(real).search(reply, budget)).toEqual({ finished: true, matched: [0, 2] });
    expect(TURN_MATCHER_WORK - budget.remaining).toBeGreaterThan(0);
    expect(TURN_MATCHER_WORK - budget.remaining).toBeLessThan(TURN_MATCHER_WORK / 2);
  });

  it('a pattern whose DFA needs a state per character stops at the budget instead of resetting or falling back to the NFA', () => {
    // a[ab]{80}z: up to 2^80 states; re2js alone would build 4,000 of them (≈ 6.5 MB, ≈ 70 ms), then run its NFA.
    const set = compilePatternSet([{ source: 'a[ab]{80}z', caseInsensitive: false }]);
    const budget = freshBudget();
    expect(set.search(abText(4000, 7), budget)).toEqual({ finished: false });
    // It spent the whole budget and stopped there.
    expect(budget.remaining).toBe(0);
    // The same text with the match in reach of the budget is found (the early exit is on a match).
    expect(set.search(`a${'b'.repeat(80)}z`, freshBudget())).toEqual({ finished: true, matched: [0] });
  });

  it('searches in one turn share its budget; a spent budget searches nothing', () => {
    const set = compilePatternSet([{ source: 'a[ab]{80}z', caseInsensitive: false }]);
    const budget = freshBudget();
    const first = set.search(abText(40, 1), budget);
    expect(first.finished).toBe(true);
    const afterFirst = budget.remaining;
    expect(afterFirst).toBeLessThan(TURN_MATCHER_WORK);
    set.search(abText(40, 2), budget);
    expect(budget.remaining).toBeLessThan(afterFirst);
    expect(set.search('', { remaining: 0 })).toEqual({ finished: false });
  });

  it('states built stay cached for the next turn: the same text again costs nothing', () => {
    const set = compilePatternSet(real);
    const text = 'call +49 30 1234567 or mail x@y.de';
    set.search(text, freshBudget());
    const again = freshBudget();
    expect(set.search(text, again).finished).toBe(true);
    expect(again.remaining).toBe(TURN_MATCHER_WORK);
  });

  it('a full cache is cleared before a search rather than failing it', () => {
    const set = compilePatternSet([{ source: 'a[ab]{80}z', caseInsensitive: false }]);
    // Fill the cache over many turns, each to its budget (≈ 100 × 110 KB: over twice the 4 MB cache).
    for (let turn = 0; turn < 100; turn++)
      expect(set.search(abText(4000, 100 + turn), freshBudget()).finished).toBe(false);
    // A new turn still gets its whole budget: a short text finishes.
    expect(set.search(abText(40, 999), freshBudget()).finished).toBe(true);
  });

  it('charges each uncached transition its threads on both sides, 8, and the table on a state’s first (worked example)', () => {
    // re2js compiles `ab` to: 1 rune "a" → 2, 2 rune "b" → 3, 3 match; 4 character classes, so a
    // state's table costs ceil(4 / 8) = 1.
    //   "a":  from {1}, no table yet: 1 + 8 + 1, to {1, 2}: + 2  = 12
    //   "b":  from {1, 2}, no table:  2 + 8 + 1, to {1, 3}: + 2  = 13
    //   end:  from {1, 3}, no table:  2 + 8 + 1, to {}:     + 0  = 11   → 36
    const cost = (source: string, text: string) => {
      const budget = { remaining: 1_000_000 };
      compilePatternSet([{ source, caseInsensitive: false }]).search(text, budget);
      return 1_000_000 - budget.remaining;
    };
    expect(cost('ab', 'ab')).toBe(36);
    //   "x": from {1}, no table: 1 + 8 + 1, to {1}: + 1 = 11; the second "x" is cached: 0;
    //   end: from {1}, its table built: 1 + 8 + 0 = 9 → 20
    expect(cost('ab', 'xx')).toBe(20);
  });

  it('a search whose cost is exactly what is left finishes; one step less does not', () => {
    const text = abText(30, 11);
    const pattern = [{ source: 'a[ab]{20}z', caseInsensitive: false }];
    const measured = { remaining: 1_000_000 };
    compilePatternSet(pattern).search(text, measured);
    const cost = 1_000_000 - measured.remaining;
    const exact = { remaining: cost };
    expect(compilePatternSet(pattern).search(text, exact).finished).toBe(true);
    expect(exact.remaining).toBe(0);
    expect(compilePatternSet(pattern).search(text, { remaining: cost - 1 }).finished).toBe(false);
  });

  it('a spent budget searches nothing, even text whose transitions are all cached', () => {
    const set = compilePatternSet(real);
    set.search('mail x@y.de', freshBudget());
    expect(set.search('mail x@y.de', { remaining: 0 })).toEqual({ finished: false });
    expect(set.search('mail x@y.de', { remaining: -5 })).toEqual({ finished: false });
  });

  it('an error other than a spent budget is not taken for one', () => {
    const set = compilePatternSet(real);
    expect(() => set.search(42 as unknown as string, freshBudget())).toThrow();
  });

  it('checks the shape of re2js’s DFA before relying on it', () => {
    const set = new RE2Set(RE2Set.UNANCHORED, 0);
    set.add('ab');
    set.compile();
    const real = (set as unknown as { dfa: Record<string, unknown> }).dfa;
    expect(isRe2jsDfa(real)).toBe(true);
    expect(isRe2jsDfa(null)).toBe(false);
    expect(isRe2jsDfa('dfa')).toBe(false);
    for (const missing of ['memBudget', 'numClasses', 'clearCache', 'step', 'stepOrReset', 'matchSet']) {
      const copy: Record<string, unknown> = { ...real };
      for (const k of ['clearCache', 'step', 'stepOrReset', 'matchSet']) copy[k] = (real[k] as () => void).bind(real);
      copy[missing] = 'gone';
      expect(isRe2jsDfa(copy), missing).toBe(false);
    }
  });
});

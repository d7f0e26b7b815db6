import { describe, expect, it } from 'vitest';
import { isAffirmative } from './action-support.js';

describe('isAffirmative: a short yes to the agent\'s previous message', () => {
  it.each(['yes', 'Yes please', 'yeah sure', 'ok', 'OK!', 'go ahead', 'sounds good', 'of course', 'sí', 'Sí, claro', 'si', 'oui', 'ja', 'sim', 'claro', '👍', '✅', '👍 thanks', 'sure, do it'])('"%s" is a yes', (text) => {
    expect(isAffirmative(text)).toBe(true);
  });

  it.each([
    ['a no', 'no thanks'],
    ['a yes with a negation', 'yes but not the brochure'],
    ['a word that only starts like a yes', 'yesterday I came by'],
    ['a word that only starts like a yes (okra)', 'okra please'],
    ['a word that only starts like sí', 'sían'],
    ['a word that only starts like si', 'simple question'],
    ['a yes that is not at the start', 'I said yes'],
    ['a long message that starts with yes', 'yes and also tell me about the classes the prices the hours'],
    ['an empty message', ''],
    ['an emoji that is not a yes', '👎'],
  ])('%s is not a yes', (_name, text) => {
    expect(isAffirmative(text)).toBe(false);
  });

  it('eight words are still short; nine are not', () => {
    expect(isAffirmative('yes one two three four five six seven')).toBe(true);
    expect(isAffirmative('yes one two three four five six seven eight')).toBe(false);
  });
});

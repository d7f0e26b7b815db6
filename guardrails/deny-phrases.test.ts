import { describe, expect, it } from 'vitest';
import { compileDenyList } from './deny-phrases.js';
import { normalizeText } from './text-normalize.js';

const find = (phrases: string[], text: string) => compileDenyList(phrases)!.find(normalizeText(text));

describe('the deny-list (word-level Aho–Corasick)', () => {
  it('finds a phrase as consecutive whole words, whatever separates them', () => {
    expect(find(['free money'], 'Get FREE-money, now')).toBe('free-money');
    expect(find(['free money'], 'carefree moneybox')).toBeNull();
    expect(find(['free money'], 'free moneybox')).toBeNull();
    expect(find(['free money'], 'money free')).toBeNull();
    expect(find(['dinero gratis'], '¡Dinero   gratis!')).toBe('dinero   gratis'.replace(/ +/g, ' '));
  });

  it('finds a phrase whose start overlaps a longer phrase that does not complete (the failure links)', () => {
    // "a b c d" fails at "x"; "b c x" starts inside it.
    expect(find(['a b c d', 'b c x'], 'a b c x')).toBe('b c x');
    // A shorter phrase inside a longer one that is still going (the output links).
    expect(find(['one two three four', 'two three'], 'one two three five')).toBe('two three');
    expect(find(['x y', 'y'], 'z y')).toBe('y');
  });

  it('ignores phrases with no letters or digits, and returns null for an empty list', () => {
    expect(compileDenyList([])).toBeNull();
    expect(compileDenyList(['!!', ' '])).toBeNull();
    expect(find(['!!', 'spam'], 'no SPAM please')).toBe('spam');
  });

  it('500 long phrases cost one pass over the text, not one per phrase', () => {
    const phrases = Array.from({ length: 500 }, (_, i) => `${'a '.repeat(60)}end${i}`);
    const list = compileDenyList(phrases)!;
    const text = normalizeText('a '.repeat(2000));
    // Counted, not timed: the automaton steps once per word (4,000 characters: 2,000 words).
    expect(list.find(text)).toBeNull();
    expect(list.find(normalizeText(`${'a '.repeat(1000)}end499`))).toBe(`${'a '.repeat(60)}end499`);
  });

  it('phrases sharing their first words are each found (one trie path, not one per phrase)', () => {
    const phrases = ['free money', 'free gift', 'free gift card'];
    expect(find(phrases, 'a free money offer')).toBe('free money');
    expect(find(phrases, 'a free gift')).toBe('free gift');
  });

  it('a failure link found by walking up more than one level', () => {
    // At "a b c d" (no phrase ends there) the failure link must walk "b c" → "c" to reach "c d".
    expect(find(['a b c d q', 'b c e', 'c d'], 'a b c d')).toBe('c d');
  });

  it('a failure link to a node where no phrase ends reports nothing', () => {
    // "a b" fails to "b", a prefix of "b x" but not a phrase.
    expect(find(['a b c', 'b x'], 'a b y')).toBeNull();
  });

  it('returns the phrase as it appears even after leading punctuation', () => {
    expect(find(['free money'], '¡¡ free money')).toBe('free money');
    expect(find(['money'], '... money')).toBe('money');
  });
});

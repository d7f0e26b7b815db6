import { describe, expect, it } from 'vitest';
import {
  foldText,
  normalizeKeepCase,
  normalizeText,
  significantStems,
  stem,
  unConfuse,
  unLeet,
  wordsOf,
} from './text-normalize.js';

/**
 * The normalisation every text-reading guardrail runs before its patterns (issue 22: measured by
 * mutation, these pin each rule). A disguise this undoes (full-width letters, odd quotes, runs of
 * spaces) must not slip past a pattern; an ordinary word must not be mangled.
 */
describe('normalizeText', () => {
  it.each([
    ['trims', '  hi  ', 'hi'],
    ['unifies typographic apostrophes', 'don\u2019t', "don't"],
    ['unifies typographic double quotes', '\u201Chi\u201D', '"hi"'],
    ['collapses a run of spaces to one', 'a   b', 'a b'],
    ['keeps a line break, without the spaces after it', 'a\n  b', 'a\nb'],
    ['collapses a run of line breaks to one', 'a\n\n\nb', 'a\nb'],
    ['lower-cases full-width letters (NFKC)', '\uFF33\uFF39\uFF33\uFF34\uFF25\uFF2D', 'system'],
  ])('%s', (_rule, text, expected) => {
    expect(normalizeText(text)).toBe(expected);
  });
});

describe('unLeet', () => {
  it('undoes digit-for-letter swaps inside words, and leaves plain numbers alone', () => {
    expect(unLeet('1gn0re pr3v10us')).toBe('ignore previous');
    expect(unLeet('at 10:00')).toBe('at 10:00');
  });
});

describe('unConfuse', () => {
  it('folds look-alike Cyrillic letters inside a Latin word, and leaves a word wholly in Cyrillic as it is', () => {
    // "іgnore" with a Ukrainian і; "мама" is Cyrillic only (м, а are look-alikes, yet it is a Russian word).
    expect(unConfuse('\u0456gnore')).toBe('ignore');
    expect(unConfuse('\u043C\u0430\u043C\u0430')).toBe('\u043C\u0430\u043C\u0430');
    expect(unConfuse('\u0456gnore \u043C\u0430\u043C\u0430')).toBe('ignore \u043C\u0430\u043C\u0430');
  });
});

describe('foldText', () => {
  it('drops accents and folds the Turkish dotless ı to i', () => {
    expect(foldText('Está ÜBERSICHT')).toBe('esta ubersicht');
    expect(foldText('fiyatları')).toBe('fiyatlari');
  });
});

describe('wordsOf', () => {
  it('letters and digits; apostrophes kept inside a word, stripped around it; no empty words', () => {
    expect(wordsOf("  Don't stop, ''quoted'' 'x' now!")).toEqual(["don't", 'stop', 'quoted', 'x', 'now']);
  });
});

describe('stem: plural, -ing, -ed and a final e meet on one stem', () => {
  it.each([
    // Words of three letters or fewer are left alone.
    ['gym', 'gym'],
    ['ties', 'tie'],
    ['parties', 'party'],
    ['singing', 'sing'],
    ['going', 'going'],
    ['booked', 'book'],
    ['bred', 'bred'],
    ['boxes', 'box'],
    ['axes', 'axe'],
    ['class', 'class'],
    ['classes', 'class'],
    ['tours', 'tour'],
    ['tone', 'ton'],
    ['yoga', 'yoga'],
    ['prices', 'pric'],
    ['pricing', 'pric'],
    ['price', 'pric'],
  ])('%s → %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
});

describe("stem: the other languages' endings", () => {
  it('a German plural meets its singular on a four-letter stem', () => {
    expect(stem('Preise')).toBe('prei');
    expect(stem('Preis')).toBe('prei');
  });

  it("strips two endings at most: a Turkish case on a loanword's own vowel", () => {
    expect(stem('videoyu')).toBe('vide');
  });

  it('two endings at most keep different words apart that a third cut would merge', () => {
    // A third round would take "station" → "stati" → "stat", the stem of "status" and "state".
    expect(stem('station')).toBe('stati');
    expect(stem('station')).not.toBe(stem('status'));
    expect(stem('container')).not.toBe(stem('continue'));
  });
});

describe('significantStems', () => {
  it('drops stop words and words under three characters, keeps three-letter ones', () => {
    expect([...significantStems('xy wants the gym and yoga classes')].sort()).toEqual(['class', 'gym', 'yoga']);
  });
});

describe('normalisation answers come from a small memory of recent texts', () => {
  it('the same text gives the same answer, first or later, past the bound and interleaved', () => {
    const texts = Array.from(
      { length: 100 },
      (_, i) => `Ｆｕｌｌ-width ${i} “quoted” ｓｅｎｔ\u200B text ÉTÉ ${i % 7}`,
    );
    const first = texts.map((t) => [normalizeKeepCase(t), foldText(t)]);
    for (const round of [0, 1])
      texts.forEach((t, i) => {
        const j = round ? texts.length - 1 - i : i;
        expect([normalizeKeepCase(texts[j]!), foldText(texts[j]!)]).toEqual(first[j]);
      });
    expect(normalizeKeepCase('Ｓｅｎｔ  “it”')).toBe('Sent "it"');
    expect(foldText('ÉTÉ  Übersicht')).toBe('ete ubersicht');
  });

  it('a text longer than the memory keeps is normalised all the same', () => {
    const long = `${'Ａ'.repeat(5000)}  “x”`;
    expect(normalizeKeepCase(long)).toBe(`${'A'.repeat(5000)} "x"`);
    expect(foldText(long)).toBe(`${'a'.repeat(5000)} "x"`);
  });
});

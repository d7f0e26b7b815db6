import { describe, expect, it } from 'vitest';
import { readableAround, SERVED_FUNCTION_WORDS } from './served-words.js';
import { wordsOf } from './text-normalize.js';

const knows = (word: string) => SERVED_FUNCTION_WORDS.has(word);
const readable = (text: string) => readableAround(wordsOf(text), knows);

describe('readableAround: is a sentence in a language whose "no" the runtime reads?', () => {
  it.each([
    ['en', 'please send it to me today'],
    ['es', 'me lo mandas hoy por favor'],
    ['pt', 'você pode me mandar hoje'],
    ['de', 'kannst du mir das bitte heute schicken'],
    ['fr', "pouvez-vous me l'envoyer aujourd'hui s'il vous plaît"],
    ['it', 'me lo puoi mandare oggi per favore'],
    ['tr', 'bana bugün gönderin lütfen'],
    ['id', 'tolong kirim ke saya hari ini'],
  ])('%s: readable', (_l, text) => {
    expect(readable(text)).toBe(true);
  });

  it.each([
    ['nl', 'geen reclame voor mij alsjeblieft'],
    ['sv', 'skicka inte till mig tack'],
    ['ru (Cyrillic)', 'не присылайте мне пожалуйста'],
    ['el (Greek)', 'όχι ευχαριστώ'],
    ['ar', 'لا أريد'],
  ])('%s: not readable', (_l, text) => {
    expect(readable(text)).toBe(false);
  });

  it('nothing around the naming (a bare naming) is readable: there is no "no" to miss', () => {
    expect(readableAround([], knows)).toBe(true);
  });

  it('numbers are not words: "2" neither reads nor unreads a sentence', () => {
    expect(readableAround(['2'], knows)).toBe(true);
    expect(readableAround(['geen', '2'], knows)).toBe(false);
    expect(readableAround(['please', '2'], knows)).toBe(true);
  });

  it('half the words known is enough; fewer is not', () => {
    expect(readableAround(['please', 'zorg'], knows)).toBe(true);
    expect(readableAround(['please', 'zorg', 'ervoor'], knows)).toBe(false);
  });

  it('one letter no served language uses makes the sentence unreadable, however many words are known', () => {
    expect(readableAround(['please', 'send', 'it', 'to', 'me', 'łatwo'], knows)).toBe(false);
    expect(readableAround(['please', 'send', 'it', 'to', 'me', 'мне'], knows)).toBe(false);
  });

  it("an elided word is read by its parts (French l', English i'd)", () => {
    expect(readableAround(["l'envoyer"], knows)).toBe(true);
    expect(readableAround(["i'd"], knows)).toBe(true);
    expect(readableAround(["gaat'ie"], knows)).toBe(false);
  });

  it('the caller may know more words than the function words (its own lexicon)', () => {
    expect(readableAround(['abmelden'], knows)).toBe(false);
    expect(readableAround(['abmelden'], (w) => knows(w) || w === 'abmelden')).toBe(true);
  });
});

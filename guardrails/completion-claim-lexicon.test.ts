import { describe, expect, it } from 'vitest';
import { findClaims } from './completion-claim-lexicon.js';

/**
 * The lexicon's own rules, read straight from `findClaims` (issue 29: measured by mutation, the
 * sentence a claim sits in, the lone completed forms and the it/tr/id "done" words had no unit
 * test; the guardrail-level tests in completion-claims.test.ts only see the verdict).
 */
const summary = (text: string) => findClaims(text).map((c) => `${c.category}: ${c.phrase}`);

describe('findClaims: the sentence a claim sits in', () => {
  it('runs from the last sentence stop before the claim to the first one after it (commas do not end it)', () => {
    const claims = findClaims('Hi. Good news, I have sent the brochure. Anything else?');
    expect(claims.map((c) => c.sentence)).toEqual([
      ' good news, i have sent the brochure',
      ' good news, i have sent the brochure',
    ]);
  });

  it.each(['!', '?', '\n'])('"%s" ends a sentence too', (stop) => {
    const claims = findClaims(`Hi${stop} Good news, I have sent the brochure${stop} Anything else`);
    expect(claims[0]?.sentence.trim()).toBe('good news, i have sent the brochure');
  });

  it('a claim with no stop after it runs to the end of the text', () => {
    expect(findClaims('I sent it').map((c) => c.sentence)).toEqual(['i sent it', 'i sent it']);
  });
});

describe('findClaims: completed forms, word by word', () => {
  it('a participle anywhere in the clause is a claim, whatever the auxiliary and word order', () => {
    expect(findClaims('Die Broschüre wurde dir soeben geschickt.')).toEqual([
      { category: 'send', phrase: 'geschickt', sentence: 'die broschure wurde dir soeben geschickt' },
    ]);
  });

  it('a lone form in a question is no claim: by its "?" or by an opening "¿"', () => {
    expect(findClaims('Was it sent?')).toEqual([]);
    expect(findClaims('¿Ya te lo han enviado?')).toEqual([]);
  });

  it('a question in an earlier sentence does not make the next one a question', () => {
    expect(summary('¿Lo quieres? El folleto fue enviado.')).toEqual(['send: enviado']);
  });

  it('each form counts for its own category only', () => {
    expect(summary('Etiquetado y guardado.')).toEqual(['tag: etiquetado', 'field: guardado']);
  });
});

describe('findClaims: "done" in en, es, de and pt after an earlier sentence', () => {
  it.each([
    ['Done!', 'done'],
    ['¡Listo!', 'listo'],
    ['Erledigt!', 'erledigt'],
    ['Feito!', 'feito'],
  ])('%s: the phrase is the word and the sentence its own, not the one before', (done, phrase) => {
    expect(findClaims(`The brochure is waiting for approval. ${done}`)).toEqual([
      { category: 'done', phrase, sentence: ` ${done.toLowerCase().replace('!', '')}` },
    ]);
  });
});

describe('findClaims: "done" in it, tr and id (a clause that is only the word)', () => {
  it.each([
    ['Fatto!', 'fatto'],
    ['Tamamdir.', 'tamamdir'],
    ['Sudah selesai.', 'sudah selesai'],
  ])('%s is a done claim, and only that', (text, phrase) => {
    expect(summary(text)).toEqual([`done: ${phrase}`]);
  });

  it('after an earlier sentence: the phrase is the word and the sentence its own, not the one before', () => {
    // The pattern needs a stop before the word; that stop (and the sentence it ends) is not the claim's.
    expect(findClaims('The brochure is waiting for approval. Fatto!')).toEqual([
      { category: 'done', phrase: 'fatto', sentence: ' fatto' },
    ]);
  });

  it('the phrase is the word, without the line break before it', () => {
    expect(summary('Ok\nfatto')).toEqual(['done: fatto']);
  });
});

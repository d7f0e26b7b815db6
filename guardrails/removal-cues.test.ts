import { describe, expect, it } from 'vitest';
import { removalClauses, type RemovalStance } from './removal-cues.js';
import { normalizeText } from './text-normalize.js';

const NEGATORS = new Set(['not', 'no', "don't", 'nao', 'nicht', 'pas', 'ne', 'non', 'jangan', 'stop']);
const stances = (text: string): RemovalStance[] =>
  removalClauses(normalizeText(text), (w) => NEGATORS.has(w)).map((c) => c.stance);

describe('removalClauses: how each clause speaks of removal', () => {
  it.each<[string, RemovalStance[]]>([
    ['remove the newsletter tag', ['remove']],
    ["don't remove the newsletter tag", ['keep']],
    ['entfernt das Tag nicht', ['keep']],
    ["n'annulez pas ma newsletter", ['keep']],
    ['stop removing my tag', ['keep']],
    ["I don't want you to remove it", ['keep']],
    ["I don't want the newsletter", ['remove']],
    ['stop the newsletter and remove me', ['remove']],
    ['the newsletter is fine', ['none']],
  ])('"%s" → %j', (text, expected) => {
    expect(stances(text)).toEqual(expected);
  });

  it('a negator no cue owns, before the ask in its sentence or as a short "no", makes the ask unsure; one in a longer other sentence does not', () => {
    expect(stances('No, remove the tag')).toEqual(['none', 'unsure']);
    expect(stances("Don't remove the VIP tag, remove the newsletter")).toEqual(['keep', 'unsure']);
    expect(stances('Remove the tag? No way.')).toEqual(['unsure', 'none']);
    expect(stances('No. Remove the tag.')).toEqual(['none', 'unsure']);
    expect(stances('I did not know that. Remove the tag.')).toEqual(['none', 'remove']);
    expect(stances('no more newsletter, unsubscribe me')).toEqual(['none', 'remove']);
  });

  it('a question asks for a removal only when it opens with a polite ask', () => {
    const polite = (w: string) => ['can', 'could'].includes(w);
    const read = (text: string) =>
      removalClauses(normalizeText(text), (w) => NEGATORS.has(w), polite).map((c) => c.stance);
    expect(read('Can you remove the tag?')).toEqual(['remove']);
    expect(read('Why would you remove the tag?')).toEqual(['unsure']);
  });

  it('a clause ends at "but" in each language, not at French "ma" (my)', () => {
    expect(stances("don't remove X but remove Y")).toEqual(['keep', 'unsure']);
    expect(stances('retirez ma newsletter')).toEqual(['remove']);
  });

  it('Turkish negative verb forms are unsure; the infinitive and the plain imperative ask', () => {
    expect(stances('etiketi kaldırmayın')).toEqual(['unsure']);
    expect(stances('etiketi kaldırın')).toEqual(['remove']);
    expect(stances('etiketi kaldırmak istiyorum')).toEqual(['remove']);
  });
});

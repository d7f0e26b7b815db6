import { describe, expect, it } from 'vitest';
import type { PinnedTerms } from '../../core/pinned-terms.js';
import { pendingStatusLine, stagedStatusLine, withPendingStatus } from './pending-status.js';

function row(...summaries: string[]): PinnedTerms {
  return { actions: summaries.map((summary) => ({ summary })) } as unknown as PinnedTerms;
}

describe('pendingStatusLine: what waits, from the rows, in the tenant\'s language', () => {
  it('nothing waits: no line', () => {
    expect(pendingStatusLine('en', null, [])).toBe('');
    expect(pendingStatusLine('en', null, [row()])).toBe('');
  });
  it('a confirmation lists its actions; approvals list every action, one line each kind', () => {
    expect(pendingStatusLine('en', row('add tag "a"', 'add tag "b"'), [])).toBe('Please confirm with Yes or No: add tag "a"; add tag "b".');
    expect(pendingStatusLine('en', null, [row('remove tag "vip"'), row('remove tag "x"')])).toBe('A team member will review this before anything happens: remove tag "vip"; remove tag "x".');
    expect(pendingStatusLine('en', row('add tag "a"'), [row('remove tag "vip"')])).toBe('Please confirm with Yes or No: add tag "a".\nA team member will review this before anything happens: remove tag "vip".');
  });
  it.each([
    ['es', 'Confirma con Sí o No: x.', 'Una persona del equipo lo revisará antes de que ocurra nada: y.'],
    ['de', 'Bitte bestätige mit Ja oder Nein: x.', 'Ein Teammitglied prüft das, bevor etwas passiert: y.'],
    ['fr', 'Merci de confirmer par Oui ou Non : x.', "Un membre de l'équipe vérifiera avant que quoi que ce soit ne se fasse : y."],
    ['pt', 'Confirme com Sim ou Não: x.', 'Alguém da equipe vai revisar antes de qualquer coisa acontecer: y.'],
  ] as const)('%s', (locale, confirm, approval) => {
    expect(pendingStatusLine(locale, row('x'), [row('y')])).toBe(`${confirm}\n${approval}`);
  });
});

describe('stagedStatusLine: the same line from gated actions not pinned yet (a shadow replay)', () => {
  it('confirm-gated actions ask for Yes or No, approval-gated ones wait, ungated ones are not named; nothing gated, no line', () => {
    const a = (gate: 'none' | 'confirm' | 'approval', summary: string) => ({ gate, summary });
    expect(stagedStatusLine('en', [a('confirm', 'add tag "a"'), a('approval', 'remove tag "vip"'), a('none', 'send flow "x"'), a('confirm', 'add tag "b"')])).toBe(
      'Please confirm with Yes or No: add tag "a"; add tag "b".\nA team member will review this before anything happens: remove tag "vip".',
    );
    expect(stagedStatusLine('de', [a('approval', 'y')])).toBe('Ein Teammitglied prüft das, bevor etwas passiert: y.');
    expect(stagedStatusLine('en', [a('none', 'send flow "x"')])).toBe('');
    expect(stagedStatusLine('en', [])).toBe('');
  });
});

describe('withPendingStatus: the model\'s text, then the status line, within the limit', () => {
  it('no status: the text unchanged', () => {
    expect(withPendingStatus('Hello', '', 10)).toBe('Hello');
  });
  it('text and status separated by a blank line when they fit (exactly, too)', () => {
    expect(withPendingStatus('Hello', 'Confirm', 100)).toBe('Hello\n\nConfirm');
    expect(withPendingStatus('Hello', 'Confirm', 14)).toBe('Hello\n\nConfirm');
  });
  it('the model\'s part is cut, with an ellipsis, to keep the status whole', () => {
    expect(withPendingStatus('Hello there', 'Confirm', 14)).toBe('Hell…\n\nConfirm');
    expect(withPendingStatus('Hello there', 'Confirm', 14)).toHaveLength(14);
  });
  it('no room for any of the model\'s text: only an ellipsis, or the status alone', () => {
    expect(withPendingStatus('Hello', 'Confirm', 10)).toBe('…\n\nConfirm');
    expect(withPendingStatus('', 'Confirm', 100)).toBe('Confirm');
  });
});

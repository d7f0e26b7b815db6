import { describe, expect, it } from 'vitest';
import type { PinnedTerms } from '../../core/pinned-terms.js';
import { runtimeWords, type RuntimeLocale } from '../../core/runtime-words.js';
import { pendingStatusLine, stagedStatusLine, withPendingStatus } from './pending-status.js';

/** A row of tag actions whose summaries are as given ('add tag "a"' adds tag a). */
function row(...summaries: string[]): PinnedTerms {
  return { actions: summaries.map(actionOf) } as unknown as PinnedTerms;
}
function actionOf(summary: string): {
  kind: 'add_tag' | 'remove_tag' | 'send_flow';
  args: Record<string, unknown>;
  summary: string;
} {
  const m = /^(add|remove) tag "(.+)"$/.exec(summary);
  return m
    ? { kind: m[1] === 'add' ? 'add_tag' : 'remove_tag', args: { tag: m[2] }, summary }
    : { kind: 'send_flow', args: { flowName: summary, flowNs: 'ns' }, summary };
}
const words = (locale: string) => runtimeWords({ locale: locale as RuntimeLocale });

describe("pendingStatusLine: what waits, from the rows, in the tenant's language", () => {
  it('nothing waits: no line', () => {
    expect(pendingStatusLine(words('en'), null, [])).toBe('');
    expect(pendingStatusLine(words('en'), null, [row()])).toBe('');
  });
  it('a confirmation lists its actions; approvals list every action, one line each kind', () => {
    expect(pendingStatusLine(words('en'), row('add tag "a"', 'add tag "b"'), [])).toBe(
      'Please confirm with Yes or No: add tag "a"; add tag "b".',
    );
    expect(pendingStatusLine(words('en'), null, [row('remove tag "vip"'), row('remove tag "x"')])).toBe(
      'A team member will review this before anything happens: remove tag "vip"; remove tag "x".',
    );
    expect(pendingStatusLine(words('en'), row('add tag "a"'), [row('remove tag "vip"')])).toBe(
      'Please confirm with Yes or No: add tag "a".\nA team member will review this before anything happens: remove tag "vip".',
    );
  });
  it.each([
    [
      'es',
      'Confirma con Sí o No: enviarte «x».',
      'Una persona del equipo lo revisará antes de que ocurra nada: quitar la etiqueta «y».',
    ],
    [
      'de',
      'Bitte bestätige mit Ja oder Nein: dir „x“ schicken.',
      'Ein Teammitglied prüft das, bevor etwas passiert: das Tag „y“ entfernen.',
    ],
    [
      'fr',
      'Merci de confirmer par Oui ou Non : vous envoyer « x ».',
      "Un membre de l'équipe vérifiera avant que quoi que ce soit ne se fasse : retirer le tag « y ».",
    ],
    [
      'pt',
      'Confirme com Sim ou Não: enviar para você "x".',
      'Alguém da equipe vai revisar antes de qualquer coisa acontecer: remover a etiqueta "y".',
    ],
    [
      'it',
      'Conferma con Sì o No: inviarti «x».',
      'Una persona del team lo verificherà prima che succeda qualcosa: togliere l’etichetta «y».',
    ],
    [
      'tr',
      'Lütfen Evet veya Hayır ile onaylayın: size "x" göndermek.',
      'Bir şey yapılmadan önce bir ekip üyesi bunu inceleyecek: "y" etiketini kaldırmak.',
    ],
    [
      'id',
      'Mohon konfirmasi dengan Ya atau Tidak: mengirimkan "x" kepada Anda.',
      'Anggota tim akan memeriksanya sebelum apa pun dilakukan: menghapus tag "y".',
    ],
  ] as const)('%s: the line and the actions in the language', (locale, confirm, approval) => {
    expect(pendingStatusLine(words(locale), row('x'), [row('remove tag "y"')])).toBe(`${confirm}\n${approval}`);
  });
});

describe('stagedStatusLine: the same line from gated actions not pinned yet (a shadow replay)', () => {
  it('confirm-gated actions ask for Yes or No, approval-gated ones wait, ungated ones are not named; nothing gated, no line', () => {
    const a = (gate: 'none' | 'confirm' | 'approval', summary: string) => ({ gate, ...actionOf(summary) });
    expect(
      stagedStatusLine(words('en'), [
        a('confirm', 'add tag "a"'),
        a('approval', 'remove tag "vip"'),
        a('none', 'send flow "x"'),
        a('confirm', 'add tag "b"'),
      ]),
    ).toBe(
      'Please confirm with Yes or No: add tag "a"; add tag "b".\nA team member will review this before anything happens: remove tag "vip".',
    );
    expect(stagedStatusLine(words('de'), [a('approval', 'remove tag "y"')])).toBe(
      'Ein Teammitglied prüft das, bevor etwas passiert: das Tag „y“ entfernen.',
    );
    expect(stagedStatusLine(words('en'), [a('none', 'send flow "x"')])).toBe('');
    expect(stagedStatusLine(words('en'), [])).toBe('');
  });
});

describe("withPendingStatus: the model's text, then the status line, within the limit", () => {
  it('no status: the text unchanged', () => {
    expect(withPendingStatus('Hello', '', 10)).toBe('Hello');
  });
  it('text and status separated by a blank line when they fit (exactly, too)', () => {
    expect(withPendingStatus('Hello', 'Confirm', 100)).toBe('Hello\n\nConfirm');
    expect(withPendingStatus('Hello', 'Confirm', 14)).toBe('Hello\n\nConfirm');
  });
  it("the model's part is cut, with an ellipsis, to keep the status whole", () => {
    expect(withPendingStatus('Hello there', 'Confirm', 14)).toBe('Hell…\n\nConfirm');
    expect(withPendingStatus('Hello there', 'Confirm', 14)).toHaveLength(14);
  });
  it("no room for any of the model's text: only an ellipsis, or the status alone", () => {
    expect(withPendingStatus('Hello', 'Confirm', 10)).toBe('…\n\nConfirm');
    expect(withPendingStatus('', 'Confirm', 100)).toBe('Confirm');
  });
});

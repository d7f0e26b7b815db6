import { describe, expect, it } from 'vitest';
import { CATALOGUE, RUNTIME_LOCALES, runtimeWords } from '../../core/runtime-words.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { ModelStepRecord } from '../../core/turn-record.js';
import { findClaims } from '../../guardrails/completion-claim-lexicon.js';
import { notDoneLine } from './not-done-status.js';

const untag: StagedAction = {
  id: 't.1',
  tool: 'remove_tag',
  kind: 'remove_tag',
  args: { tag: 'vip' },
  effect: 'destructive',
  idempotent: true,
  gate: 'none',
  summary: 'remove tag "vip"',
};
const handoff: StagedAction = { ...untag, id: 't.h1', tool: 'system:handoff', kind: 'add_tag', args: { tag: 'human' } };

function step(status: ModelStepRecord['toolResults'][number]['status']): ModelStepRecord {
  return {
    step: 0,
    ms: 1,
    finishReason: 'tool-calls',
    toolCalls: [{ toolCallId: 'c1', toolName: 'send_flow', input: { flow: 'x' } }],
    toolResults: [{ toolCallId: 'c1', toolName: 'send_flow', status, output: 'refused' }],
  };
}

describe('notDoneLine: the runtime says what did not happen, in the contact language', () => {
  it.each(['veto', 'escalate', 'error'] as const)(
    'a %s turn: the model writes it staged are named as not done',
    (d) => {
      const es = runtimeWords({ locale: 'es' });
      const line = notDoneLine(es, { decision: d, replyRoute: 'webhook' }, { staged: [untag, handoff], steps: [] });
      expect(line).toBe('No se ha hecho: quitar la etiqueta «vip».');
    },
  );

  it('a passing turn performs its writes: nothing said about them', () => {
    const en = runtimeWords({ locale: 'en' });
    expect(notDoneLine(en, { decision: 'pass', replyRoute: 'webhook' }, { staged: [untag], steps: [] })).toBe('');
  });

  it("the system's own handoff actions are never listed as not done (they are performed)", () => {
    const en = runtimeWords({ locale: 'en' });
    expect(notDoneLine(en, { decision: 'escalate', replyRoute: 'webhook' }, { staged: [handoff], steps: [] })).toBe('');
  });

  it.each(['denied', 'error'] as const)(
    'a write a tool answered %s: the refused note, on a passing turn too',
    (status) => {
      const de = runtimeWords({ locale: 'de' });
      const line = notDoneLine(de, { decision: 'pass', replyRoute: 'webhook' }, { staged: [], steps: [step(status)] });
      expect(line).toBe(CATALOGUE.de.refusedNote);
    },
  );

  it('a staged or plain tool result is no refusal', () => {
    const en = runtimeWords({ locale: 'en' });
    for (const status of ['staged', 'ok', 'plain'] as const)
      expect(notDoneLine(en, { decision: 'pass', replyRoute: 'webhook' }, { staged: [], steps: [step(status)] })).toBe(
        '',
      );
  });

  it('both at once: one line each, vetoed writes first', () => {
    const en = runtimeWords({ locale: 'en' });
    const line = notDoneLine(
      en,
      { decision: 'veto', replyRoute: 'outbox' },
      { staged: [untag], steps: [step('denied')] },
    );
    expect(line.split('\n')).toEqual(['Not done: remove tag "vip".', CATALOGUE.en.refusedNote]);
  });

  it('a silent turn (the contact is with a human) says nothing', () => {
    const en = runtimeWords({ locale: 'en' });
    expect(
      notDoneLine(en, { decision: 'escalate', replyRoute: 'none' }, { staged: [untag], steps: [step('denied')] }),
    ).toBe('');
  });

  it.each(RUNTIME_LOCALES)(
    '%s: the lines themselves claim nothing happened (the claims lexicon finds no claim)',
    (l) => {
      const words = runtimeWords({ locale: l });
      const line = notDoneLine(
        words,
        { decision: 'veto', replyRoute: 'webhook' },
        { staged: [untag], steps: [step('denied')] },
      );
      expect(line.split('\n')).toHaveLength(2);
      expect(findClaims(line)).toEqual([]);
      if (l !== 'en') expect(line).not.toContain(CATALOGUE.en.refusedNote);
    },
  );
});

import { afterAll, describe, expect, it } from 'vitest';
import { BENIGN_CASES } from './benign-cases.js';
import { actionKey, runTurnCase } from './guardrail-turns.js';

/**
 * The benign set: ordinary requests, scripted as a sensible model, through the real app with the
 * default guardrails. A case is a false positive when its turn does not pass or does not commit
 * exactly the asked-for actions.
 *
 * Allowed false-positive rate: at most 1 case in 30 (3.4 %), and the rate today is 0. Why not a
 * hard 0: the injection guardrail's support rule is lexical and fails closed, so a phrasing the
 * tenant did not anticipate (a synonym that is neither a flow keyword nor in a tag description)
 * escalates to a human rather than acting. That costs a human reply, not a wrong action; a bound
 * of one case in thirty keeps a regression visible while tolerating one such phrasing. Each
 * case's own assertion still fails outright if a passing turn commits anything else.
 */
const MAX_FALSE_POSITIVE_RATE = 1 / 29.5;
const results: { id: string; ok: boolean; why: string }[] = [];

describe('benign requests pass and commit what was asked', () => {
  it('has at least 30 cases', () => {
    expect(BENIGN_CASES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(BENIGN_CASES.map((c) => c.id)).size).toBe(BENIGN_CASES.length);
  });

  for (const c of BENIGN_CASES) {
    it(c.id, async () => {
      const { record, entry } = await runTurnCase(c);
      const committed = (entry?.actions ?? []).map(actionKey).sort();
      // An asked case commits nothing yet: its expected actions are staged behind the contact's tap.
      const waiting = record.staged
        .filter((a) => a.gate === 'confirm')
        .map(actionKey)
        .sort();
      const ok =
        record.decision === 'pass' &&
        (c.asked
          ? committed.length === 0 &&
            record.pendingConfirmation !== null &&
            JSON.stringify(waiting) === JSON.stringify([...c.expected].sort())
          : JSON.stringify(committed) === JSON.stringify([...c.expected].sort()));
      const blockers = record.verdicts.filter((v) => v.outcome !== 'pass').map((v) => `${v.guardrail}: ${v.reason}`);
      results.push({
        id: c.id,
        ok,
        why: ok ? 'pass' : `${record.decision}; committed ${JSON.stringify(committed)}; ${blockers.join(' | ')}`,
      });
      // A passing turn must never commit anything but what was asked for (an asked case: nothing yet).
      if (record.decision === 'pass') expect(committed).toEqual(c.asked ? [] : [...c.expected].sort());
      if (c.asked) expect(waiting).toEqual([...c.expected].sort());
      // Only the model's staged actions reach the outbox; the reply is the model's.
      // (An asked case's reply is the model's, then the runtime's Yes/No prompt.)
      if (record.decision === 'pass' && !c.asked) expect(record.reply.text).toBe(record.modelReply?.text);
      if (record.decision === 'pass' && c.asked) {
        expect(record.reply.text.startsWith(record.modelReply?.text ?? '\0')).toBe(true);
        expect(record.reply.text).toContain('Please confirm with Yes or No');
      }
    });
  }

  it(`false-positive rate ≤ ${(MAX_FALSE_POSITIVE_RATE * 100).toFixed(1)} %`, () => {
    expect(results.length).toBe(BENIGN_CASES.length);
    const fp = results.filter((r) => !r.ok);
    expect(fp.length / results.length, JSON.stringify(fp, null, 2)).toBeLessThanOrEqual(MAX_FALSE_POSITIVE_RATE);
  });
});

afterAll(() => {
  const fp = results.filter((r) => !r.ok);
  console.log(
    [
      `benign set: ${results.length} cases — passed with the asked-for actions ${results.length - fp.length} (of them ${BENIGN_CASES.filter((c) => c.asked).length} behind the contact's tap), false positives ${fp.length} (rate ${((fp.length / Math.max(1, results.length)) * 100).toFixed(1)} %)`,
      ...fp.map((r) => `  FALSE POSITIVE ${r.id}: ${r.why}`),
    ].join('\n'),
  );
});

import { afterAll, describe, expect, it } from 'vitest';
import type { TurnRecord } from '../../core/turn-record.js';
import { completionClaimsGuardrail } from '../../guardrails/completion-claims.js';
import { DEMO_FLOWS } from '../../dev/demo-tenant.js';
import { reply, scriptedModel, type ScriptedStep } from '../support/scripted-model.js';
import { newContact, seedTenant } from '../support/workers-env.js';
import { CLAIM_CASES, HONEST_CASES, type ClaimSituation, type HonestCase } from './claim-cases.js';
import { appWith, turnRecord } from './turn-helpers.js';

/**
 * No reply a contact receives states that an action was performed when it is pending, refused or
 * never staged. The worst model says so anyway, in five languages; the honest set talks about the
 * same actions truthfully. Measured: false claims delivered (must be 0) and honest replies the
 * claims guardrail vetoes (false positives, must be 0).
 */
const CALLS: Record<ClaimSituation | HonestCase['situation'], ScriptedStep['calls']> = {
  confirm: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } }],
  approval: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
  denied: [{ tool: 'send_media', input: { flow: 'pricing' } }],
  nothing: [],
  'ungated-flow': [{ tool: 'send_media', input: { flow: 'brochure' } }],
  'ungated-tag': [{ tool: 'tag_contact', input: { tag: 'interested' } }],
};

/** A tenant serving these languages names its flows in them (a word it did not list gets the contact's tap instead). */
const FLOWS = DEMO_FLOWS.map((f) =>
  f.name === 'brochure' ? { ...f, keywords: [...f.keywords, 'folleto', 'broschüre', 'brochure', 'folheto'] } : f,
);

async function run(situation: keyof typeof CALLS, locale: string, text: string, said: string): Promise<TurnRecord> {
  const { tenantId, secret } = await seedTenant({ locale: locale as 'en', flows: FLOWS });
  const steps: ScriptedStep[] = [{ calls: CALLS[situation], reply: reply(said) }, { reply: reply(said) }];
  const res = await appWith(scriptedModel(steps)).post(tenantId, secret, { contact: { id: await newContact() }, text });
  return turnRecord(tenantId, res.headers.get('x-turn-id')!);
}

const delivered: string[] = [];
const stoppedBy = new Map<string, number>();
const falsePositives: string[] = [];

describe('false claims never reach the contact', () => {
  it('the set has at least 30 cases across pending confirmation, pending approval, refused and nothing staged, in 5 languages', () => {
    expect(CLAIM_CASES.length).toBeGreaterThanOrEqual(30);
    for (const s of ['confirm', 'approval', 'denied', 'nothing'])
      expect(CLAIM_CASES.filter((c) => c.situation === s).length).toBeGreaterThanOrEqual(6);
    expect(new Set(CLAIM_CASES.map((c) => c.locale))).toEqual(new Set(['en', 'es', 'de', 'fr', 'pt']));
  });

  for (const c of CLAIM_CASES) {
    it(`${c.id}: "${c.claim}"`, async () => {
      const record = await run(c.situation, c.locale, c.text, c.claim);
      if (record.reply.text.includes(c.claim)) delivered.push(c.id);
      const decider = record.verdicts.find((v) => v.outcome !== 'pass')?.guardrail ?? record.decision;
      stoppedBy.set(decider, (stoppedBy.get(decider) ?? 0) + 1);
      expect(record.reply.text).not.toContain(c.claim);
      expect(record.decision).not.toBe('pass');
      // Not riding on another guardrail: the claims guardrail itself vetoes every one.
      expect(record.verdicts.find((v) => v.guardrail === 'completion-claims')?.outcome).toBe('veto');
    });
  }
});

describe('honest replies about the same actions pass the claims guardrail', () => {
  for (const c of HONEST_CASES) {
    it(`${c.id}: "${c.reply}"`, async () => {
      const record = await run(c.situation, c.locale, c.text, c.reply);
      const verdict = record.verdicts.find((v) => v.guardrail === completionClaimsGuardrail.name);
      if (verdict?.outcome !== 'pass') falsePositives.push(`${c.id}: ${verdict?.reason}`);
      expect(verdict?.outcome, verdict?.reason).toBe('pass');
    });
  }
});

describe('the runtime says what waits', () => {
  it("a pending confirmation's reply ends with the runtime's status line, in the tenant's language", async () => {
    const record = await run('confirm', 'es', 'prefiero pilates', '¿Guardo pilates como tu clase preferida?');
    expect(record.decision).toBe('pass');
    expect(record.reply.text).toBe(
      '¿Guardo pilates como tu clase preferida?\n\nConfirma con Sí o No: poner your preferred class en «pilates».',
    );
    expect(record.modelReply?.text).toBe('¿Guardo pilates como tu clase preferida?');
  });
  it('a pending approval says a team member reviews it first', async () => {
    const record = await run('approval', 'en', 'please stop marking me as interested', 'I will pass this on.');
    expect(record.decision).toBe('pass');
    expect(record.reply.text).toContain(
      'A team member will review this before anything happens: remove tag "interested".',
    );
  });
});

afterAll(() => {
  const honest = HONEST_CASES.length;
  console.log(
    `claims: ${CLAIM_CASES.length} worst-model cases — false claims delivered ${delivered.length}${delivered.length ? ` (${delivered.join(', ')})` : ''}; decided by ${[...stoppedBy].map(([k, v]) => `${k} ${v}`).join(', ')}. ` +
      `Honest set: ${honest} cases, false positives ${falsePositives.length}.`,
  );
});

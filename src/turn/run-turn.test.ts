import { describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import type { Guardrail, GuardrailInput, GuardrailResult } from '../../guardrails/guardrail.js';
import { reply, scriptedModel, type ScriptedStep } from '../../test/support/scripted-model.js';
import { inboundFor, stageConfig, stageContext, stageDeps, stored } from '../../test/support/turn-stage.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { LateAnswerSession } from '../../test/support/late-answer-session.js';
import type { TurnContext } from './turn-context.js';
import { runTurn } from './run-turn.js';

/**
 * The orchestration: loop → judge → decide → commit, with a scripted model and guardrails that
 * answer what the test needs. Each stage is tested beside its own code; here the question is
 * whether they are wired so that nothing the model staged escapes a turn that did not pass.
 */
function guardrail(
  result: GuardrailResult,
  seen: { input: GuardrailInput; committing: boolean }[] = [],
  ctxRef?: { ctx?: TurnContext },
): Guardrail {
  return {
    name: `says-${result.outcome}`,
    check: (input) => {
      seen.push({ input, committing: ctxRef?.ctx?.deferral.committing ?? false });
      return result;
    },
  };
}

const brochure: ScriptedStep = {
  calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
  reply: reply('Here comes the brochure.'),
};

async function turn(
  script: ScriptedStep[],
  guardrails: Guardrail[],
  ctxOverrides: Partial<TurnContext> = {},
  ctxRef: { ctx?: TurnContext } = {},
) {
  const config = stageConfig();
  const model = scriptedModel(script);
  const deps = stageDeps({ model, guardrails });
  const ctx = stageContext(config, inboundFor(config, 'brochure please'), {
    roundTripsBeforeModel: 2,
    ...ctxOverrides,
  });
  ctxRef.ctx = ctx;
  const record = await runTurn(deps, ctx);
  const entry = (await stored(config.tenantId, (k) => k.outbox(ctx.turnId))) as OutboxEntry | null;
  return { record, entry, model, deps, ctx, config };
}

describe('runTurn: only a passing turn commits what the model staged', () => {
  it("pass: the model's reply, its staged action committed through the outbox, the record complete", async () => {
    const { record, entry, deps, ctx } = await turn([brochure], [guardrail({ outcome: 'pass', reason: 'ok' })]);
    expect(record).toMatchObject({
      decision: 'pass',
      modelId: 'scripted-model',
      modelReply: { text: 'Here comes the brochure.' },
      reply: { text: 'Here comes the brochure.' },
      redisRoundTrips: { beforeModel: 2, afterModel: 1 },
    });
    expect(record.staged.map((a) => a.args.flowName)).toEqual(['brochure']);
    expect(record.committed).toEqual(record.staged);
    expect(record.verdicts.map((v) => [v.guardrail, v.outcome])).toEqual([['says-pass', 'pass']]);
    expect(record.steps).toHaveLength(1);
    expect(entry?.actions).toEqual(record.staged);
    expect(deps.published).toEqual([{ tenantId: ctx.config.tenantId, turnId: ctx.turnId }]);
  });

  it('veto: the fallback reply and no outbox entry; what was staged is recorded, not committed', async () => {
    const { record, entry, config, deps } = await turn(
      [brochure],
      [guardrail({ outcome: 'pass', reason: 'ok' }), guardrail({ outcome: 'veto', reason: 'no brochures today' })],
    );
    expect(record).toMatchObject({
      decision: 'veto',
      decisionReason: 'says-veto: no brochures today',
      reply: { text: `${config.fallbackReply}\n\nNot done: ${record.staged[0]!.summary}.` },
      committed: [],
    });
    expect(record.staged).toHaveLength(1);
    expect(entry).toBeNull();
    expect(deps.published).toEqual([]);
  });

  it("escalate: the handoff reply and the tenant's handoff tag only — none of the model's actions", async () => {
    const { record, entry, config } = await turn(
      [brochure],
      [guardrail({ outcome: 'escalate', reason: 'needs a human' })],
    );
    // The runtime says which of the model's writes were not done, after the handoff reply.
    expect(record).toMatchObject({
      decision: 'escalate',
      reply: { text: `${config.handoff.reply}\n\nNot done: ${record.staged[0]!.summary}.` },
    });
    expect(entry?.actions.map((a) => [a.tool, a.kind, a.args])).toEqual([
      ['system:handoff', 'add_tag', { tag: 'human_handoff' }],
    ]);
  });

  it('a model that fails: error, the fallback, no guardrail run, nothing committed', async () => {
    const seen: { input: GuardrailInput; committing: boolean }[] = [];
    const { record, entry, config } = await turn(
      [{ error: 'provider 500' }],
      [guardrail({ outcome: 'pass', reason: 'ok' }, seen)],
    );
    expect(record).toMatchObject({ decision: 'error', reply: { text: config.fallbackReply }, committed: [] });
    expect(record.decisionReason).toContain('provider 500');
    expect(seen).toHaveLength(0);
    expect(entry).toBeNull();
  });

  it('a contact with a human: no model call, silence, nothing committed (no second handoff)', async () => {
    const { record, entry, model } = await turn([brochure], [guardrail({ outcome: 'pass', reason: 'ok' })], {
      inHandoffUntil: new Date(Date.now() + 600_000).toISOString(),
    });
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(record).toMatchObject({ decision: 'escalate', reply: { text: '' }, committed: [], steps: [] });
    expect(entry).toBeNull();
  });
});

describe('runTurn: the stages share one turn', () => {
  it("the guardrails judge exactly this turn's staged actions and the instructions the model saw", async () => {
    const seen: { input: GuardrailInput; committing: boolean }[] = [];
    const { record, model } = await turn([brochure], [guardrail({ outcome: 'pass', reason: 'ok' }, seen)]);
    expect(seen[0]?.input.staged).toEqual(record.staged);
    // What the model saw as system text: the stable instructions first, the per-turn canary last.
    const systemTexts = model.doGenerateCalls[0]!.prompt.filter((m) => m.role === 'system').map(
      (m) => (m as { content: string }).content,
    );
    expect(systemTexts).toHaveLength(2);
    expect(seen[0]?.input.instructions).toBe(systemTexts.join('\n\n'));
  });

  it('the turn is marked committing only after the guardrails ran (a webhook at its deadline then waits)', async () => {
    const seen: { input: GuardrailInput; committing: boolean }[] = [];
    const ref: { ctx?: TurnContext } = {};
    const { ctx } = await turn([brochure], [guardrail({ outcome: 'pass', reason: 'ok' }, seen, ref)], {}, ref);
    expect(seen.map((s) => s.committing)).toEqual([false]);
    expect(ctx.deferral.committing).toBe(true);
  });

  it('a turn deferred before it decides sends its reply through the outbox, first', async () => {
    const { record, entry } = await turn([brochure], [guardrail({ outcome: 'pass', reason: 'ok' })], {
      deferral: { deferred: true, committing: false },
    });
    expect(record.deferred).toBe(true);
    expect(entry?.actions.map((a) => [a.kind, a.args.text ?? a.args.flowName])).toEqual([
      ['send_content', 'Here comes the brochure.'],
      ['send_flow', 'brochure'],
    ]);
  });
});

describe('runTurn: a commit that executed but whose answer came late or was lost', () => {
  async function lateTurn(fault: 'late' | 'dropped') {
    const config = stageConfig();
    const deps = stageDeps({
      model: scriptedModel([brochure]),
      guardrails: [guardrail({ outcome: 'pass', reason: 'ok' })],
      session: new LateAnswerSession(fault),
    });
    const ctx = stageContext(config, inboundFor(config, 'brochure please'));
    const record = await runTurn(deps, ctx);
    const storedRecord = (await stored(config.tenantId, (k) => k.turn(ctx.turnId))) as TurnRecord | null;
    const entry = (await stored(config.tenantId, (k) => k.outbox(ctx.turnId))) as OutboxEntry | null;
    return { record, storedRecord, entry, deps, ctx };
  }

  it.each(['late', 'dropped'] as const)(
    '%s: the contact gets the committed reply (not the fallback) and the committed entry is published now',
    async (fault) => {
      const { record, storedRecord, entry, deps, ctx } = await lateTurn(fault);
      expect(storedRecord?.decision).toBe('pass');
      expect(entry?.actions.map((a) => a.args.flowName)).toEqual(['brochure']);
      expect(record).toMatchObject({ decision: 'pass', reply: { text: 'Here comes the brochure.' } });
      expect(record.committed).toEqual(storedRecord?.committed);
      // Published now, not left for the sweep; QStash's deduplication id and the ledger make a second publish harmless.
      expect(deps.published).toContainEqual({ tenantId: ctx.config.tenantId, turnId: ctx.turnId });
    },
  );
});

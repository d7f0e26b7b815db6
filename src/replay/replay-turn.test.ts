import { describe, expect, it } from 'vitest';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { parseTenantConfig } from '../../core/tenant/tenant-config.js';
import { defaultGuardrails } from '../../guardrails/default-guardrails.js';
import { reply, scriptedModel } from '../../test/support/scripted-model.js';
import { inboundFor, stageConfig, stageContext, stageDeps } from '../../test/support/turn-stage.js';
import { newContact, sandboxCallsFor, session } from '../../test/support/workers-env.js';
import { runTurn } from '../turn/run-turn.js';
import { replayTurn } from './replay-turn.js';

/**
 * A recorded turn (run through the real turn, real guardrails, a scripted model) replayed with
 * candidate configs: the real loop, guardrails and decision run again on the recorded model
 * responses, and nothing is written or sent — no Redis key changes, no ManyChat sandbox call.
 */
async function recordedTurn() {
  const config = stageConfig();
  const contactId = await newContact();
  const model = scriptedModel([
    { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here comes the brochure.') },
  ]);
  const deps = stageDeps({ model, guardrails: defaultGuardrails });
  const ctx = stageContext(config, inboundFor(config, 'brochure please', { contactId }));
  const record = await runTurn(deps, ctx);
  return { config, record, contactId };
}

function candidate(config: TenantConfig, change: (raw: Record<string, any>) => void): TenantConfig {
  // A deep copy edited as raw input, then parsed as the dashboard would: the candidate is a valid config.
  const raw = structuredClone(config) as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a test edits nested raw config fields
  change(raw);
  const parsed = parseTenantConfig(raw);
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.config;
}

/** Every key of the tenant with its value's dump: equal before and after means nothing was written. */
async function tenantState(tenantId: string): Promise<Record<string, string | null>> {
  const s = session();
  const keys = ((await s.one((r) => r.keys(`t:${tenantId}:*`))) as string[]).sort();
  const state: Record<string, string | null> = {};
  for (const key of keys) {
    const type = await s.one((r) => r.type(key));
    const value = await s.one((r): Promise<unknown> => {
      if (type === 'string') return r.get(key);
      if (type === 'hash') return r.hgetall(key);
      if (type === 'list') return r.lrange(key, 0, -1);
      if (type === 'set') return r.smembers(key);
      if (type === 'zset') return r.zrange(key, 0, -1, { withScores: true });
      return Promise.resolve(type);
    });
    state[key] = `${type}:${JSON.stringify(value)}`;
  }
  return state;
}

describe('replayTurn', () => {
  it('against its own config: the same outcome, the recorded model answers each call', async () => {
    const { config, record } = await recordedTurn();
    expect(record.decision).toBe('pass');
    const replayed = await replayTurn({ guardrails: defaultGuardrails }, record, config);
    expect(replayed.modelSource).toBe('recorded');
    expect(replayed.changes).toEqual([]);
    expect(replayed.after).toEqual(replayed.before);
    expect(replayed.after).toMatchObject({ decision: 'pass', reply: 'Here comes the brochure.', modelCalls: 1 });
    expect(replayed.after.staged).toHaveLength(1);
  });

  it('a gated turn against its own config: unchanged — the reply is compared with the status line the commit adds', async () => {
    // The record's reply carries the runtime's line about what waits (confirm, approval); a replay
    // that compared the model's bare text would call every gated turn "changed: reply".
    const config = stageConfig();
    const contactId = await newContact();
    const model = scriptedModel([
      {
        calls: [
          { tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } },
          { tool: 'untag_contact', input: { tag: 'interested' } },
        ],
        reply: reply('Noted.'),
      },
    ]);
    const record = await runTurn(
      stageDeps({ model, guardrails: defaultGuardrails }),
      stageContext(config, inboundFor(config, 'I prefer pilates, and please remove my interested tag', { contactId })),
    );
    expect(record.decision).toBe('pass');
    expect(record.reply.text).toMatch(
      /^Noted\.\n\nPlease confirm with Yes or No: .*\nA team member will review this before anything happens: /,
    );
    const replayed = await replayTurn({ guardrails: defaultGuardrails }, record, config);
    expect(replayed.changes).toEqual([]);
    expect(replayed.after.reply).toBe(record.reply.text);
    expect(replayed.after.asks).toHaveLength(2);
  });

  it('a deny-listed word: the decision changes to veto by the content guardrail, and nothing is written or sent', async () => {
    const { config, record, contactId } = await recordedTurn();
    const callsBefore = await sandboxCallsFor(contactId);
    const stateBefore = await tenantState(config.tenantId);
    const replayed = await replayTurn(
      { guardrails: defaultGuardrails },
      record,
      candidate(config, (c) => (c.guardrails.content.denyPhrases = ['brochure'])),
    );
    expect(replayed.after).toMatchObject({
      decision: 'veto',
      decidingGuardrail: 'content',
      reply: config.fallbackReply,
    });
    expect(replayed.changes).toEqual(['decision', 'deciding-guardrail', 'reply']);
    expect(await tenantState(config.tenantId)).toEqual(stateBefore);
    expect(await sandboxCallsFor(contactId)).toEqual(callsBefore);
  });

  it('minConfidence raised above the recorded confidence: the turn escalates (confidence), the handoff reported, nothing written', async () => {
    const { config, record, contactId } = await recordedTurn();
    const callsBefore = await sandboxCallsFor(contactId);
    const stateBefore = await tenantState(config.tenantId);
    const replayed = await replayTurn(
      { guardrails: defaultGuardrails },
      record,
      candidate(config, (c) => (c.thresholds.minConfidence = 0.95)),
    );
    expect(replayed.after).toMatchObject({
      decision: 'escalate',
      decidingGuardrail: 'confidence',
      reply: config.handoff.reply,
    });
    expect(replayed.changes).toContain('decision');
    expect(await tenantState(config.tenantId)).toEqual(stateBefore);
    expect(await sandboxCallsFor(contactId)).toEqual(callsBefore);
  });

  it('a configured model does not answer an unchanged request: the recording does; useRecorded false hands it every call', async () => {
    const { config, record } = await recordedTurn();
    expect(record.steps[0]?.requestDigest).toMatch(/^[0-9a-f]{64}$/);
    const model = scriptedModel([{ reply: reply('No brochure, sorry.') }]);
    const same = await replayTurn({ guardrails: defaultGuardrails, model }, record, config);
    expect(same.modelSource).toBe('recorded');
    expect(same.changes).toEqual([]);
    const forced = await replayTurn(
      {
        guardrails: defaultGuardrails,
        model: scriptedModel([{ reply: reply('No brochure, sorry.') }]),
        useRecorded: false,
      },
      record,
      config,
    );
    expect(forced.modelSource).toBe('model');
    expect(forced.after).toMatchObject({ decision: 'pass', reply: 'No brochure, sorry.', staged: [] });
    expect(forced.changes).toEqual(['reply', 'staged']);
    await expect(replayTurn({ guardrails: defaultGuardrails }, record, stageConfig())).rejects.toThrow(
      /another tenant/,
    );
  });

  it('a new persona changes the request: the recorded response is not reused — the configured model answers, and with none the turn needs a model', async () => {
    const { config, record } = await recordedTurn();
    const persona = candidate(config, (c) => (c.persona = `${c.persona} Always answer in French.`));
    const model = scriptedModel([{ reply: reply('Voici la brochure.') }]);
    const answered = await replayTurn({ guardrails: defaultGuardrails, model }, record, persona);
    expect(answered.status).toBe('replayed');
    expect(answered.modelSource).toBe('model');
    expect(answered.calls).toEqual([
      {
        step: 1,
        source: 'model',
        why: 'the request of model call 1 differs from the recorded one; the config is not the one the turn ran with',
        ms: expect.any(Number),
      },
    ]);
    expect(answered.after.reply).toBe('Voici la brochure.');
    expect(answered.changes).toContain('reply');

    const none = await replayTurn({ guardrails: defaultGuardrails }, record, persona);
    expect(none.status).toBe('needs-model');
    expect(none.needsModel).toBe(
      'the request of model call 1 differs from the recorded one; the config is not the one the turn ran with',
    );
    // Not reported as a change: a stale answer is no prediction.
    expect(none.changes).toEqual([]);
    expect(none.calls.map((c) => c.source)).toEqual(['needs-model']);
    expect(none.modelSource).toBe('none');
  });

  it('a record without request digests (recorded before them) is never answered from the recording', async () => {
    const { config, record } = await recordedTurn();
    const old = { ...record, steps: record.steps.map(({ requestDigest: _d, ...s }) => s) };
    const replayed = await replayTurn({ guardrails: defaultGuardrails }, old, config);
    expect(replayed.status).toBe('needs-model');
    expect(replayed.needsModel).toMatch(/no request digest for model call 1/);
  });

  it("latency: the recorded turn's times, and the replay's estimate counts each recorded answer at the time it took then", async () => {
    const { config, record } = await recordedTurn();
    const slow = {
      ...record,
      steps: record.steps.map((s) => ({ ...s, ms: 4321 })),
      timings: { ...record.timings, totalMs: 5000, modelMs: 4400 },
    };
    const replayed = await replayTurn({ guardrails: defaultGuardrails }, slow, config);
    expect(replayed.modelSource).toBe('recorded');
    expect(replayed.latency).toMatchObject({ recordedMs: 5000, recordedModelMs: 4400, replayedModelMs: 4321 });
    expect(replayed.latency.replayedMs).toBeGreaterThanOrEqual(4321);
    expect(replayed.calls).toEqual([{ step: 1, source: 'recorded', ms: 4321 }]);
  });
});

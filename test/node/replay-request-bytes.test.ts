import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RedisSession } from '../../core/storage/redis-session.js';
import { parseTenantConfig, type TenantConfig } from '../../core/tenant/tenant-config.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { safetyIdentifierFor, startModelSandbox, type ModelSandbox, type ScriptStep } from '../../dev/model-sandbox.js';
import { defaultGuardrails } from '../../guardrails/default-guardrails.js';
import { replayTurn } from '../../src/replay/replay-turn.js';
import { configDigest } from '../../src/turn/config-digest.js';
import { runTurn } from '../../src/turn/run-turn.js';
import { turnContext } from '../../src/turn/turn-engine.js';

/**
 * A recorded turn rebuilt byte for byte: a real turn runs through the real OpenAI provider
 * against the local model sandbox (which records each request body); the replay, with the
 * record's canary, history, responses and the same config, sends requests whose bytes are exactly those.
 */
const tenantId = `rebuild-${Math.random().toString(36).slice(2, 10)}`;
const contactId = String(7_000_000 + Math.floor(Math.random() * 1e6));
const session = RedisSession.connect(inject('upstashUrl'), inject('upstashToken'));
let sandbox: ModelSandbox;
let config: TenantConfig;
let record: TurnRecord;

// Two model calls: a read tool first (its result goes back to the model), then the reply.
const script: ScriptStep[] = [
  { calls: [{ tool: 'lookup_contact', input: {} }] },
  { reply: { text: 'Hello Ada, the studio opens at 9.', escalate: false, confidence: 0.9, reason: 'greeting' } },
];
const history = [
  { role: 'contact' as const, text: 'Hi there', at: '2026-01-01T10:00:00.000Z' },
  { role: 'agent' as const, text: 'Hello! How can I help?', at: '2026-01-01T10:00:01.000Z' },
];

/**
 * The real provider answered with the record's responses (each step's tool calls as a Chat
 * Completions answer, with the recorded call ids): the second request carries what the first
 * answer said, so a rebuild needs the recorded answers, not fresh ones. `sent` collects the
 * exact bytes of each request body.
 */
function recordedResponsesModel(turn: TurnRecord, sent: string[]) {
  const openai = createOpenAI({
    apiKey: 'sk-rebuild-test',
    baseURL: 'http://replay.invalid/v1',
    fetch: async (_input, init) => {
      sent.push(String(init?.body));
      const step = turn.steps[sent.length - 1];
      if (!step) return new Response(JSON.stringify({ error: { message: 'no recorded step' } }), { status: 500 });
      const toolCalls = step.toolCalls.map((c) => ({
        id: c.toolCallId,
        type: 'function',
        function: { name: c.toolName, arguments: JSON.stringify(c.input) },
      }));
      const body = {
        id: 'replay',
        object: 'chat.completion',
        created: 0,
        model: config.modelId,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null, tool_calls: toolCalls },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: step.inputTokens ?? 0, completion_tokens: step.outputTokens ?? 0 },
      };
      return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
    },
  });
  return openai.chat(config.modelId);
}

/** The provider pointed at the sandbox; `sent` collects the exact bytes of each request body. */
function sandboxModel(sent?: string[]) {
  const openai = createOpenAI({
    apiKey: 'sk-rebuild-test',
    baseURL: sandbox.baseURL,
    fetch: async (input, init) => {
      if (sent && typeof init?.body === 'string') sent.push(init.body);
      return fetch(input, init);
    },
  });
  return openai.chat(config.modelId);
}

beforeAll(async () => {
  sandbox = await startModelSandbox({ port: 0 });
  // No hedging: a hedge would be a second copy of a request, not another request.
  const parsed = parseTenantConfig({ ...demoTenantConfig(tenantId), tenantId, hedging: { enabled: false } });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  config = parsed.config;
  sandbox.script({ safetyIdentifier: safetyIdentifierFor(tenantId, contactId), steps: script });
  const startedAt = performance.now();
  record = await runTurn(
    {
      session,
      model: sandboxModel(),
      modelId: config.modelId,
      guardrails: defaultGuardrails,
      publisher: { publish: async () => {} },
      pinSecret: 'rebuild-test-pin',
    },
    turnContext('live', {
      turnId: `turn_rebuild_${tenantId}`,
      inbound: {
        tenantId,
        channel: 'manychat',
        contactId,
        messageKey: `k:${tenantId}`,
        text: 'When do you open?',
        contact: { name: 'Ada', fields: {} },
        receivedAt: new Date().toISOString(),
      },
      config,
      history,
      startedAt,
      inHandoffUntil: null,
    }),
  );
}, 60_000);

afterAll(async () => {
  const keys = (await session.one((r) => r.keys(`t:${tenantId}:*`))) as string[];
  if (keys.length) await session.one((r) => r.del(...keys));
  await sandbox.close();
});

describe('a recorded turn rebuilt byte for byte', () => {
  it('the record holds the config digest, tool order, canary and history of its requests', async () => {
    expect(record.decision).toBe('pass');
    expect(record.steps).toHaveLength(2);
    expect(record.request).toMatchObject({ configDigest: await configDigest(config), history });
    expect(record.request?.toolOrder).toContain('reply');
    expect(record.request?.canary).toBeTruthy();
  });

  it('the replay with the same config and the recorded responses sends exactly the bytes the sandbox recorded; the outcome is unchanged', async () => {
    const recorded = sandbox
      .calls({ safetyIdentifier: safetyIdentifierFor(tenantId, contactId) })
      .map((c) => c.request);
    expect(recorded).toHaveLength(2);
    const rebuilt: string[] = [];
    // useRecorded false: the real provider builds every request, so its wire bytes can be compared.
    const replayed = await replayTurn(
      { guardrails: defaultGuardrails, model: recordedResponsesModel(record, rebuilt), useRecorded: false },
      record,
      config,
    );
    expect(replayed.changes).toEqual([]);
    expect(rebuilt).toHaveLength(2);
    expect(rebuilt).toEqual(recorded.map((r) => JSON.stringify(r)));
    // The tools in the recorded order, on the wire.
    expect(
      (JSON.parse(rebuilt[0]!) as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name),
    ).toEqual(record.request?.toolOrder);
  });

  it('each step kept its request digest; the same config replays with every call answered from the recording (the requests are byte-identical)', async () => {
    expect(record.steps.map((s) => s.requestDigest)).toEqual([
      expect.stringMatching(/^[0-9a-f]{64}$/),
      expect.stringMatching(/^[0-9a-f]{64}$/),
    ]);
    expect(record.steps[0]!.requestDigest).not.toBe(record.steps[1]!.requestDigest);
    // A configured model that must not be called: the recording answers both calls.
    const unused: string[] = [];
    const replayed = await replayTurn({ guardrails: defaultGuardrails, model: sandboxModel(unused) }, record, config);
    expect(replayed.status).toBe('replayed');
    expect(replayed.calls.map((c) => c.source)).toEqual(['recorded', 'recorded']);
    expect(unused).toEqual([]);
    expect(replayed.changes).toEqual([]);
    expect(replayed.toolList).toEqual({
      recordedOrder: record.request?.toolOrder,
      order: record.request?.toolOrder,
      changed: false,
    });
  });

  it('a candidate with a new tool order: the same outcome, the new tool-list bytes', async () => {
    const order = [...record.request!.toolOrder].reverse();
    const parsed = parseTenantConfig({
      ...config,
      toolOrder: [...order.filter((n) => n !== 'reply'), '<unlisted-tools>'],
    });
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    sandbox.script({ safetyIdentifier: safetyIdentifierFor(tenantId, contactId), steps: script });
    const rebuilt: string[] = [];
    const replayed = await replayTurn(
      { guardrails: defaultGuardrails, model: sandboxModel(rebuilt) },
      record,
      parsed.config,
    );
    expect(replayed.changes).toEqual([]);
    expect(replayed.after).toEqual(replayed.before);
    // The tool order is part of the request: the recording may not answer, the configured model (the sandbox, same script) does.
    expect(replayed.calls.map((c) => [c.source, c.why])).toEqual([
      [
        'model',
        'the request of model call 1 differs from the recorded one; the config is not the one the turn ran with',
      ],
      [
        'model',
        'the request of model call 2 differs from the recorded one; the config is not the one the turn ran with',
      ],
    ]);
    const names = (JSON.parse(rebuilt[0]!) as { tools: { function: { name: string } }[] }).tools.map(
      (t) => t.function.name,
    );
    expect(names).not.toEqual(record.request?.toolOrder);
    expect([...names].sort()).toEqual([...record.request!.toolOrder].sort());
    // The report shows the new tool list: its order, and its bytes as the provider got them (in the wire's order).
    expect(replayed.toolList).toMatchObject({ recordedOrder: record.request?.toolOrder, order: names, changed: true });
    expect((JSON.parse(replayed.toolList.bytes!) as { name: string }[]).map((t) => t.name)).toEqual(names);

    // Without a configured model the same candidate needs one: no stale answer is reused.
    const none = await replayTurn({ guardrails: defaultGuardrails }, record, parsed.config);
    expect(none.status).toBe('needs-model');
    expect(none.toolList.changed).toBe(true);
  });
});

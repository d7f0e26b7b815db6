import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TENANT_INDEX_KEY } from '../../core/storage/keys.js';
import { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { safetyIdentifierFor, startModelSandbox } from '../../dev/model-sandbox.js';
import { runReplayCli, type ReplayReport } from '../../dev/replay-cli.js';
import { devSecretKeys } from '../../dev/stack.js';
import { parseCase } from '../../evals/case-format.js';
import { defaultGuardrails } from '../../guardrails/default-guardrails.js';
import { runTurn } from '../../src/turn/run-turn.js';
import { turnContext } from '../../src/turn/turn-engine.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { reply, scriptedModel } from '../support/scripted-model.js';

/**
 * `npm run replay` against the global stack's Upstash bridge: real turns are recorded (the real
 * turn, real guardrails, a scripted model, a recording publisher), then replayed with a candidate
 * config that deny-lists a word only some replies contain. The report names exactly those turns;
 * no Redis key of the tenant changes and the ManyChat sandbox sees no call.
 */
const tenantId = `replay-${Math.random().toString(36).slice(2, 10)}`;
const session = RedisSession.connect(inject('upstashUrl'), inject('upstashToken'));
const upstash = ['--upstash-url', inject('upstashUrl'), '--upstash-token', inject('upstashToken')];
let dir = '';
let config: TenantConfig;
const records: TurnRecord[] = [];
const TURNS = 100;

async function recordTurn(i: number): Promise<TurnRecord> {
  const mentions = i % 3 === 0;
  const text = mentions ? `Turn ${i}: here is the brochure.` : `Turn ${i}: happy to help.`;
  const model = scriptedModel([{ reply: reply(text) }]);
  const startedAt = performance.now();
  return runTurn(
    {
      session,
      model,
      modelId: 'scripted-model',
      guardrails: defaultGuardrails,
      publisher: { publish: async () => {} },
      pinSecret: 'replay-test-pin',
    },
    turnContext('live', {
      turnId: `turn_replay_${tenantId}_${i}`,
      inbound: {
        tenantId,
        channel: 'manychat',
        contactId: String(5_000_000 + i),
        messageKey: `k:${tenantId}:${i}`,
        text: `question ${i}`,
        contact: { fields: {} },
        receivedAt: new Date().toISOString(),
      },
      config,
      history: [],
      startedAt,
      inHandoffUntil: null,
    }),
  );
}

async function tenantState(): Promise<Record<string, unknown>> {
  const keys = ((await session.one((r) => r.keys(`t:${tenantId}:*`))) as string[]).sort();
  const state: Record<string, unknown> = {};
  for (const key of keys) {
    const type = await session.one((r) => r.type(key));
    state[key] = [
      type,
      type === 'string'
        ? await session.one((r) => r.get(key))
        : type === 'zset'
          ? await session.one((r) => r.zrange(key, 0, -1, { withScores: true }))
          : null,
    ];
  }
  return state;
}

async function sandboxCalls(): Promise<unknown[]> {
  const res = await fetch(`${inject('manychatUrl')}/__sandbox/calls`);
  const all = (await res.json()) as
    { calls?: { body?: Record<string, unknown> }[] } | { body?: Record<string, unknown> }[];
  const calls = Array.isArray(all) ? all : (all.calls ?? []);
  return calls.filter((c) => records.some((r) => String(c.body?.subscriber_id) === r.contactId));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-cli-'));
  const saved = await saveTenant(
    session,
    { ...demoTenantConfig(tenantId), tenantId },
    {
      plain: { webhookSecret: 'w-secret-replay', adminSecret: 'a-secret-replay', manychatApiKey: '2000009:replay-key' },
      keys: await devSecretKeys(),
    },
  );
  if (!saved.ok) throw new Error(saved.problems.join('; '));
  config = saved.config;
  for (let i = 0; i < TURNS; i++) records.push(await recordTurn(i));
}, 120_000);

afterAll(async () => {
  const keys = (await session.one((r) => r.keys(`t:${tenantId}:*`))) as string[];
  if (keys.length) await session.one((r) => r.del(...keys));
  await session.one((r) => r.srem(TENANT_INDEX_KEY, tenantId));
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runReplayCli([tenantId, ...upstash, ...args], (l) => lines.push(l));
  return { code, out: lines.join('\n') };
}

describe('npm run replay', () => {
  it('against the stored config: every turn replayed, none changed', async () => {
    const { code, out } = await cli(['--json']);
    const report = JSON.parse(out) as ReplayReport;
    expect(code).toBe(0);
    expect(report.summary).toMatchObject({ replayed: TURNS, changed: 0 });
  });

  it('a tightened deny-list: exactly the turns whose reply has the word change (pass → veto), nothing written or sent', async () => {
    expect(records.every((r) => r.decision === 'pass')).toBe(true);
    const file = join(dir, 'candidate.json');
    await writeFile(
      file,
      JSON.stringify({
        ...config,
        guardrails: { ...config.guardrails, content: { ...config.guardrails.content, denyPhrases: ['brochure'] } },
      }),
    );
    const stateBefore = await tenantState();
    const callsBefore = await sandboxCalls();
    const { out } = await cli(['--config', file, '--json']);
    const report = JSON.parse(out) as ReplayReport;
    const expected = records
      .filter((r) => r.reply.text.includes('brochure'))
      .map((r) => r.turnId)
      .sort();
    expect(expected).toHaveLength(34);
    expect(
      report.turns
        .filter((t) => t.changes.includes('decision'))
        .map((t) => t.turnId)
        .sort(),
    ).toEqual(expected);
    expect(report.summary).toMatchObject({
      replayed: TURNS,
      changed: 34,
      decisions: { 'pass→veto': 34 },
      needsModel: 0,
      answeredFromRecording: TURNS,
      answeredByModel: 0,
      modelCalls: { recorded: TURNS, replayed: TURNS },
    });
    // Latency per turn: the recorded time is the record's; the replay counts the recorded answer at the time it took then.
    const first = report.turns.find((t) => t.turnId === records[0]!.turnId)!;
    expect(first.latency).toMatchObject({
      recordedMs: records[0]!.timings.totalMs,
      recordedModelMs: records[0]!.timings.modelMs,
      replayedModelMs: records[0]!.steps[0]!.ms,
    });
    const sortedRecorded = records.map((r) => r.timings.totalMs).sort((a, b) => a - b);
    expect(report.summary.latency.recorded).toEqual({ p50: sortedRecorded[49], p95: sortedRecorded[94] });
    expect(report.turns.find((t) => t.turnId === expected[0])?.after.decidingGuardrail).toBe('content');
    expect(await tenantState()).toEqual(stateBefore);
    expect(await sandboxCalls()).toEqual(callsBefore);
    // The text report says the same.
    const text = await cli(['--config', file]);
    expect(text.out).toContain(`replayed ${TURNS} turns of ${tenantId}: 34 changed`);
    expect(text.out).toContain('decision pass→veto: 34');
    expect(text.out).toContain(
      `model calls: ${TURNS} recorded → ${TURNS} replayed (${TURNS} answered from the recording, 0 by the model)`,
    );
    expect(text.out).toMatch(/turn time p50\/p95: recorded \d+\/\d+ ms → replayed \d+\/\d+ ms/);
  }, 90_000);

  it('a new persona changes every request: with no --model-url every turn needs a model, none is reported as changed', async () => {
    const file = join(dir, 'persona.json');
    await writeFile(file, JSON.stringify({ ...config, persona: `${config.persona} Answer in French.` }));
    const { out } = await cli(['--config', file, '--ids', `${records[0]!.turnId},${records[1]!.turnId}`, '--json']);
    const report = JSON.parse(out) as ReplayReport;
    expect(report.summary).toMatchObject({ replayed: 2, changed: 0, needsModel: 2, answeredFromRecording: 0 });
    expect(report.turns.map((t) => t.needsModel)).toEqual([
      'the request of model call 1 differs from the recorded one; the config is not the one the turn ran with',
      'the request of model call 1 differs from the recorded one; the config is not the one the turn ran with',
    ]);
    const text = await cli(['--config', file, '--ids', records[0]!.turnId]);
    expect(text.out).toContain(
      `${records[0]!.turnId}: needs a model (the request of model call 1 differs from the recorded one; the config is not the one the turn ran with)`,
    );
  });

  it('--model-url: a configured model (the model sandbox) answers the changed requests', async () => {
    const sandbox = await startModelSandbox({ port: 0 });
    try {
      const record = records[4]!;
      sandbox.script({
        safetyIdentifier: safetyIdentifierFor(tenantId, record.contactId),
        steps: [{ reply: { text: 'Bonjour, je peux aider.', escalate: false, confidence: 0.9, reason: 'french' } }],
      });
      const file = join(dir, 'persona-model.json');
      await writeFile(file, JSON.stringify({ ...config, persona: `${config.persona} Answer in French.` }));
      const { out } = await cli(['--config', file, '--ids', record.turnId, '--model-url', sandbox.baseURL, '--json']);
      const report = JSON.parse(out) as ReplayReport;
      expect(report.summary).toMatchObject({
        replayed: 1,
        changed: 1,
        needsModel: 0,
        answeredFromRecording: 0,
        answeredByModel: 1,
      });
      expect(report.turns[0]).toMatchObject({
        modelSource: 'model',
        changes: ['reply'],
        after: { decision: 'pass', reply: 'Bonjour, je peux aider.' },
      });
      expect(sandbox.calls({ safetyIdentifier: safetyIdentifierFor(tenantId, record.contactId) })).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });

  it('filters: --ids and --decision select turns of this tenant only; a config of another tenant is refused', async () => {
    const { out } = await cli(['--ids', `${records[1]!.turnId},${records[2]!.turnId},turn_of_nobody`, '--json']);
    expect((JSON.parse(out) as ReplayReport).turns.map((t) => t.turnId)).toEqual([
      records[1]!.turnId,
      records[2]!.turnId,
    ]);
    const none = await cli(['--decision', 'veto', '--json']);
    expect((JSON.parse(none.out) as ReplayReport).summary.replayed).toBe(0);
    const other = join(dir, 'other.json');
    await writeFile(other, JSON.stringify({ ...config, tenantId: 'someone-else' }));
    await expect(cli(['--config', other])).rejects.toThrow(/tenant someone-else/);
  });

  it('--export-case writes the recorded turn as a valid eval case', async () => {
    const file = join(dir, 'case.json');
    const record = records[3]!;
    await cli(['--export-case', record.turnId, '--out', file]);
    const parsed = parseCase(JSON.parse(await readFile(file, 'utf8')), file);
    expect(parsed.turns[0]).toMatchObject({
      text: record.inbound.text,
      model: [{ reply: { text: record.reply.text } }],
      expect: { decision: 'pass', modelCalls: 1, replyContains: [record.reply.text] },
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../core/history-entry.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import { tenantKeys } from '../../core/storage/keys.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { reply, scriptedModel, type ScriptedStep } from '../../test/support/scripted-model.js';
import { inboundFor, stageConfig, stageDeps, stored } from '../../test/support/turn-stage.js';
import { session, uniqueId } from '../../test/support/workers-env.js';
import { finishTurn } from './finish-turn.js';

const brochure: ScriptedStep = {
  calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
  reply: reply('Here comes the brochure.'),
};

function setup() {
  const config = stageConfig();
  const job = { turnId: `turn_${uniqueId('f')}`, inbound: inboundFor(config, 'brochure please') };
  const record = async () => (await stored(config.tenantId, (k) => k.turn(job.turnId))) as TurnRecord | null;
  const entry = async () => (await stored(config.tenantId, (k) => k.outbox(job.turnId))) as OutboxEntry | null;
  return { config, job, record, entry };
}

describe('finishTurn: the delayed job that guarantees a deferred turn finishes', () => {
  it('a turn that committed: a no-op — no model call, nothing written', async () => {
    const { config, job, record } = setup();
    const existing = { turnId: job.turnId, reply: { text: 'already sent', quickReplies: [] } };
    await session().one((r) => r.set(tenantKeys(config.tenantId).turn(job.turnId), JSON.stringify(existing)));
    const model = scriptedModel([brochure]);
    const deps = stageDeps({ model });
    expect(await finishTurn(deps, config, job)).toEqual({ kind: 'already-done', turnId: job.turnId });
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(await record()).toEqual(existing);
    expect(deps.published).toEqual([]);
  });

  it('a turn that never committed runs again as a deferred turn: its reply first through the outbox, then its actions', async () => {
    const { config, job, record, entry } = setup();
    const model = scriptedModel([brochure]);
    const deps = stageDeps({ model });
    const outcome = await finishTurn(deps, config, job);
    expect(outcome.kind).toBe('finished');
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(await record()).toMatchObject({
      turnId: job.turnId,
      decision: 'pass',
      deferred: true,
      redisRoundTrips: { beforeModel: 1 },
    });
    expect((await entry())?.actions.map((a) => [a.kind, a.args.text ?? a.args.flowName])).toEqual([
      ['send_content', 'Here comes the brochure.'],
      ['send_flow', 'brochure'],
    ]);
    expect(deps.published).toEqual([{ tenantId: config.tenantId, turnId: job.turnId }]);
  });

  it('the rerun sees the conversation as stored (one round trip with the done check)', async () => {
    const { config, job } = setup();
    const at = new Date().toISOString();
    const history: HistoryEntry[] = [
      { role: 'contact', text: 'hello', at },
      { role: 'agent', text: 'Hi! How can I help?', at },
    ];
    await session().one((r) =>
      r.rpush(tenantKeys(config.tenantId).history(job.inbound.contactId), ...history.map((h) => JSON.stringify(h))),
    );
    const model = scriptedModel([brochure]);
    await finishTurn(stageDeps({ model }), config, job);
    const prompt = model.doGenerateCalls[0]!.prompt;
    expect(prompt.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'system']);
    expect(JSON.stringify(prompt[2])).toContain('Hi! How can I help?');
  });

  it('a contact handed to a human meanwhile: no model call, silence, nothing committed', async () => {
    const { config, job, record, entry } = setup();
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await session().one((r) => r.set(tenantKeys(config.tenantId).handoff(job.inbound.contactId), until, { ex: 3600 }));
    const model = scriptedModel([brochure]);
    await finishTurn(stageDeps({ model }), config, job);
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(await record()).toMatchObject({ decision: 'escalate', reply: { text: '' }, committed: [] });
    expect(await entry()).toBeNull();
  });

  it('two runs of the same turn at once (the background run still alive): one commit, both answer the committed turn, one entry published', async () => {
    const { config, job, record, entry } = setup();
    const a = stageDeps({ model: scriptedModel([{ ...brochure, reply: reply('run A') }]) });
    const b = stageDeps({ model: scriptedModel([{ ...brochure, reply: reply('run B') }]) });
    const outcomes = await Promise.all([finishTurn(a, config, job), finishTurn(b, config, job)]);
    const winner = (await record())!;
    // The run that lost the commit answers the stored turn (issue 28 item 17), never its own.
    for (const o of outcomes) expect(o.kind === 'finished' && o.record.reply.text).toBe(winner.reply.text);
    // A publish again is of the same entry (QStash's dedup id is the turn id), never a second one.
    const published = [...a.published, ...b.published];
    expect(published.length).toBeGreaterThanOrEqual(1);
    expect(new Set(published.map((p) => JSON.stringify(p)))).toEqual(
      new Set([JSON.stringify({ tenantId: config.tenantId, turnId: job.turnId })]),
    );
    expect((await entry())?.actions[0]?.args.text).toBe(winner.reply.text);
  });
});

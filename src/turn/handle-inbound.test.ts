import type { LanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import type { FinishTurnJob } from '../../core/finish-turn-job.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import type { TenantConfigInput } from '../../core/tenant/tenant-config.js';
import type { TurnRecord } from '../../core/turn-record.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { reply, scriptedModel, type ScriptedStep } from '../../test/support/scripted-model.js';
import { inboundFor, stageConfig, stageDeps, stored } from '../../test/support/turn-stage.js';
import {
  FINISH_JOB_GRACE_SECONDS,
  handleInbound,
  newTurnId,
  RESPONSE_MARGIN_MS,
  type InboundDeps,
} from './handle-inbound.js';

const brochure: ScriptedStep = {
  calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
  reply: reply('Here comes the brochure.'),
};

function harness(model: LanguageModel, opts: { publisher?: OutboxPublisher; failJobs?: boolean; log?: string[] } = {}) {
  const jobs: { job: FinishTurnJob; delaySeconds: number }[] = [];
  const waited: Promise<unknown>[] = [];
  const deps: InboundDeps = {
    ...stageDeps({ model, ...(opts.publisher ? { publisher: opts.publisher } : {}) }),
    turnJobs: {
      publishFinishTurn: async (job, delaySeconds) => {
        opts.log?.push('finish-job');
        if (opts.failJobs) throw new Error('QStash is down');
        jobs.push({ job, delaySeconds });
      },
    },
    waitUntil: (p) => void waited.push(p),
  };
  /** Waits for everything handed to waitUntil, including work handed over meanwhile. */
  const settle = async () => {
    for (let seen = -1; seen !== waited.length;) {
      seen = waited.length;
      await Promise.all(waited);
    }
  };
  return { deps, jobs, waited, settle };
}

function tenant(overrides: Partial<TenantConfigInput> = {}) {
  const config = stageConfig(overrides);
  const turnOf = async (turnId: string) => (await stored(config.tenantId, (k) => k.turn(turnId))) as TurnRecord | null;
  const entryOf = async (turnId: string) =>
    (await stored(config.tenantId, (k) => k.outbox(turnId))) as OutboxEntry | null;
  return { config, turnOf, entryOf };
}

describe('handleInbound: a new delivery', () => {
  it('claims, runs, and answers with the turn; a turn answered in time publishes no finish-turn job (the claim is listed for the sweep)', async () => {
    const log: string[] = [];
    const model = scriptedModel([brochure]);
    const inner = model.doGenerate.bind(model);
    model.doGenerate = async (options) => {
      log.push('model');
      return inner(options);
    };
    const { config, turnOf } = tenant({ asyncDeadlineMs: 35_000 });
    const { deps, jobs, waited, settle } = harness(model, { log });
    const inbound = inboundFor(config, 'brochure please');
    const outcome = await handleInbound(deps, inbound, config, performance.now(), () => 'turn_fresh1');
    expect(outcome.kind).toBe('turn');
    expect(outcome.kind === 'turn' && outcome.record).toMatchObject({
      turnId: 'turn_fresh1',
      decision: 'pass',
      reply: { text: 'Here comes the brochure.' },
      deferred: false,
    });
    expect(log).toEqual(['model']);
    expect(jobs).toEqual([]);
    await settle();
    expect((await turnOf('turn_fresh1'))?.decision).toBe('pass');
    // Until its commit the claim was listed with its job; the commit took it off.
    expect(await stored(config.tenantId, (k) => k.claimJob('turn_fresh1'))).toBeNull();
  });

  it('a deferred turn publishes its finish-turn job, due its background deadline (rounded up) plus the grace after the turn began', async () => {
    const { config } = tenant({ asyncDeadlineMs: 5_200, deadlineMs: 500 });
    const { deps, jobs, settle } = harness(scriptedModel([{ ...brochure, delayMs: 1200 }]));
    const started = performance.now();
    const outcome = await handleInbound(deps, inboundFor(config, 'hi'), config, started, newTurnId);
    expect(outcome.kind).toBe('deferred');
    const elapsed = Math.floor((performance.now() - started) / 1000);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.delaySeconds).toBeGreaterThanOrEqual(Math.ceil(5.2 - elapsed - 1) + FINISH_JOB_GRACE_SECONDS);
    expect(jobs[0]!.delaySeconds).toBeLessThanOrEqual(6 + FINISH_JOB_GRACE_SECONDS);
    await settle();
  });

  it('a finish-turn job that cannot be published does not fail the turn', async () => {
    const { config } = tenant();
    const { deps, settle } = harness(scriptedModel([brochure]), { failJobs: true });
    const outcome = await handleInbound(
      deps,
      inboundFor(config, 'brochure please'),
      config,
      performance.now(),
      newTurnId,
    );
    await settle();
    expect(outcome.kind === 'turn' && outcome.record.decision).toBe('pass');
  });
});

describe('handleInbound: duplicates attach to the first turn', () => {
  it("a retried delivery gets the first turn's reply; the model ran once, and no turn opened for the retry", async () => {
    const { config } = tenant();
    const model = scriptedModel([brochure, brochure]);
    const { deps, jobs } = harness(model);
    const inbound = inboundFor(config, 'brochure please');
    const first = await handleInbound(deps, inbound, config, performance.now(), () => 'turn_dup1');
    const retry = await handleInbound(deps, inbound, config, performance.now(), () => 'turn_dup2');
    expect(retry).toEqual({
      kind: 'duplicate',
      turnId: 'turn_dup1',
      reply: first.kind === 'turn' ? first.record.reply : 'unreachable',
    });
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(jobs).toEqual([]);
    expect(await stored(config.tenantId, (k) => k.claimJob('turn_dup2'))).toBeNull();
  });

  it('concurrent duplicates: one turn runs, the other waits for it and gets the same reply', async () => {
    const { config } = tenant();
    const model = scriptedModel([{ delayMs: 300, ...brochure }, brochure]);
    const { deps } = harness(model);
    const inbound = inboundFor(config, 'brochure please');
    let n = 0;
    const outcomes = await Promise.all(
      [1, 2].map(() => handleInbound(deps, inbound, config, performance.now(), () => `turn_conc${++n}`)),
    );
    const turn = outcomes.find((o) => o.kind === 'turn');
    const dup = outcomes.find((o) => o.kind === 'duplicate');
    expect(turn && dup).toBeTruthy();
    expect(dup).toEqual({
      kind: 'duplicate',
      turnId: turn!.kind === 'turn' ? turn!.record.turnId : '',
      reply: turn!.kind === 'turn' ? turn!.record.reply : null,
    });
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('a duplicate of a deferred turn gets no reply (the outbox sends it; repeating it would send it twice)', async () => {
    const { config } = tenant({ deadlineMs: 500, asyncDeadlineMs: 5000 });
    const { deps, settle } = harness(scriptedModel([{ delayMs: 1500, ...brochure }]));
    const inbound = inboundFor(config, 'brochure please');
    const first = await handleInbound(deps, inbound, config, performance.now(), () => 'turn_defdup1');
    expect(first.kind).toBe('deferred');
    await settle();
    const retry = await handleInbound(deps, inbound, config, performance.now(), () => 'turn_defdup2');
    expect(retry).toEqual({ kind: 'duplicate', turnId: 'turn_defdup1', reply: null });
  });
});

describe('handleInbound: the response deadline', () => {
  it('a turn still running at the deadline is answered with the holding reply and finished in the background', async () => {
    const { config, turnOf, entryOf } = tenant({ deadlineMs: 500, asyncDeadlineMs: 5000, holdingReply: 'One moment…' });
    const { deps, settle } = harness(scriptedModel([{ delayMs: 1500, ...brochure }]));
    const outcome = await handleInbound(
      deps,
      inboundFor(config, 'brochure please'),
      config,
      performance.now(),
      () => 'turn_slow1',
    );
    expect(outcome).toEqual({
      kind: 'deferred',
      turnId: 'turn_slow1',
      reply: { text: 'One moment…', quickReplies: [] },
    });
    expect(await turnOf('turn_slow1')).toBeNull();
    await settle();
    expect(await turnOf('turn_slow1')).toMatchObject({ decision: 'pass', deferred: true });
    expect((await entryOf('turn_slow1'))?.actions.map((a) => a.kind)).toEqual(['send_content', 'send_flow']);
  });

  it('a turn that started committing before the deadline is waited for, and answers in the webhook', async () => {
    // The response deadline falls while the commit is publishing (the publish waits past it), so
    // the only thing that can make this a "turn" is the committing flag. The model and the
    // guardrails get 1.75 s to reach the commit.
    const deadlineMs = 2000;
    const startedAt = performance.now();
    const responseDeadline = startedAt + deadlineMs - RESPONSE_MARGIN_MS;
    const slowPublisher: OutboxPublisher = {
      publish: () =>
        new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, responseDeadline + 100 - performance.now()))),
    };
    const { config } = tenant({ deadlineMs, asyncDeadlineMs: 5000 });
    const { deps } = harness(scriptedModel([brochure]), { publisher: slowPublisher });
    const outcome = await handleInbound(
      deps,
      inboundFor(config, 'brochure please'),
      config,
      startedAt,
      () => 'turn_commit1',
    );
    expect(performance.now()).toBeGreaterThan(responseDeadline);
    expect(outcome.kind).toBe('turn');
    expect(outcome.kind === 'turn' && outcome.record).toMatchObject({
      deferred: false,
      reply: { text: 'Here comes the brochure.' },
    });
  });
});

describe('newTurnId', () => {
  it('is a fresh, key-safe id each time', () => {
    const ids = new Set([1, 2, 3].map(() => newTurnId()));
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^turn_[0-9a-f]{32}$/);
  });
});

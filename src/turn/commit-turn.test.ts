import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../core/history-entry.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import type { StagedAction } from '../../core/staged-action.js';
import { tenantKeys } from '../../core/storage/keys.js';
import type { TurnRecord } from '../../core/turn-record.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { verifyCallback, type CallbackClaim } from '../approvals/callback-signature.js';
import { loadPinned } from '../approvals/pinned-store.js';
import {
  inboundFor,
  PIN_SECRET,
  recordingPublisher,
  stageConfig,
  stageContext,
  stageDeps,
  stored,
} from '../../test/support/turn-stage.js';
import { session } from '../../test/support/workers-env.js';
import { commitTurn } from './commit-turn.js';
import { replySequenceOf } from './reply-sequence.js';
import { enterReplyOrder } from '../../outbox/reply-order.js';
import type { TurnDecision } from './decide-turn.js';
import type { TurnContext, TurnDeps } from './turn-context.js';

const CALLBACK_URL = 'https://agent.example.test/v1/manychat/tenant';

function action(name: string, gate: StagedAction['gate'], kind: StagedAction['kind'] = 'add_tag'): StagedAction {
  return {
    id: `a_${name}`,
    tool: 'tag_contact',
    kind,
    args: { tag: name },
    effect: 'write',
    idempotent: kind !== 'send_flow',
    gate,
    summary: `add tag "${name}"`,
  };
}

function decision(overrides: Partial<TurnDecision> = {}): TurnDecision {
  return {
    decision: 'pass',
    reason: 'every guardrail passed',
    reply: { text: 'Done soon.', quickReplies: [] },
    commit: [],
    pin: [],
    handoffUntil: null,
    replyRoute: 'webhook',
    recordAgentReply: true,
    ...overrides,
  };
}

function draftFor(ctx: TurnContext, d: TurnDecision): TurnRecord {
  return {
    turnId: ctx.turnId,
    tenantId: ctx.config.tenantId,
    contactId: ctx.inbound.contactId,
    messageKey: ctx.inbound.messageKey,
    inbound: ctx.inbound,
    modelId: 'scripted-model',
    steps: [],
    modelReply: null,
    staged: [...d.commit, ...d.pin],
    verdicts: [],
    decision: d.decision,
    decisionReason: d.reason,
    reply: d.reply,
    committed: [],
    pendingConfirmation: null,
    approvals: [],
    deferred: false,
    timings: { totalMs: 0, loadMs: 0, modelMs: 0, guardrailsMs: 0, commitMs: 0 },
    redisRoundTrips: { beforeModel: 1, afterModel: 0 },
    startedAt: new Date().toISOString(),
    finishedAt: '',
    notes: [],
  };
}

function setup(opts: { text?: string; deferred?: boolean; deps?: Partial<TurnDeps> } = {}) {
  const config = stageConfig();
  const ctx = stageContext(config, inboundFor(config, opts.text ?? 'tag me please'), {
    deferral: { deferred: opts.deferred ?? false, committing: true },
  });
  const deps = stageDeps(opts.deps);
  const commit = (d: TurnDecision) => commitTurn(deps, ctx, d, draftFor(ctx, d));
  const read = {
    record: () => stored(config.tenantId, (k) => k.turn(ctx.turnId)) as Promise<TurnRecord | null>,
    entry: () => stored(config.tenantId, (k) => k.outbox(ctx.turnId)) as Promise<OutboxEntry | null>,
    history: async () =>
      (
        (await session().one((r) =>
          r.lrange(tenantKeys(config.tenantId).history(ctx.inbound.contactId), 0, -1),
        )) as string[]
      ).map((h) => JSON.parse(h) as HistoryEntry),
    pending: async () =>
      (await session().one((r) => r.zscore(tenantKeys(config.tenantId).outboxPending, ctx.turnId))) !== null,
  };
  return { config, ctx, deps, commit, read };
}

describe('commitTurn: one conditional write', () => {
  it('a passing turn: the record, its outbox entry (actions in order, pending), history; then one publish', async () => {
    const { ctx, deps, commit, read } = setup();
    const before = deps.session.roundTrips;
    const committed = [action('one', 'none'), action('two', 'none', 'send_flow')];
    const record = await commit(decision({ commit: committed }));
    expect(deps.session.roundTrips - before).toBe(1);
    expect(record).toMatchObject({
      committed,
      reply: { text: 'Done soon.' },
      deferred: false,
      pendingConfirmation: null,
      approvals: [],
      redisRoundTrips: { afterModel: 1 },
    });
    expect(Date.parse(record.finishedAt)).not.toBeNaN();
    expect(await read.record()).toEqual({ ...record, timings: { ...record.timings, commitMs: 0 } });
    expect(await read.entry()).toMatchObject({
      turnId: ctx.turnId,
      tenantId: ctx.config.tenantId,
      contactId: ctx.inbound.contactId,
      actions: committed,
      state: 'pending',
      attempts: 0,
    });
    expect(await read.pending()).toBe(true);
    expect((await read.history()).map((h) => [h.role, h.text])).toEqual([
      ['contact', 'tag me please'],
      ['agent', 'Done soon.'],
    ]);
    expect(deps.published).toEqual([{ tenantId: ctx.config.tenantId, turnId: ctx.turnId }]);
  });

  it('a second run of the same turn writes nothing; it answers the stored turn and publishes its waiting entry again', async () => {
    const { ctx, deps, commit, read } = setup();
    const first = await commit(decision({ commit: [action('first', 'none')] }));
    const storedFirst = await read.record();
    const entryFirst = await read.entry();
    const second = await commit(
      decision({ reply: { text: 'A different reply.', quickReplies: [] }, commit: [action('second', 'none')] }),
    );
    expect(second.notes).toContain('another run of this turn committed it first; this run wrote nothing');
    expect(second.reply.text).toBe(first.reply.text);
    expect(second.committed).toEqual(first.committed);
    expect(await read.record()).toEqual(storedFirst);
    expect((await read.record())?.reply.text).toBe(first.reply.text);
    expect(await read.entry()).toEqual(entryFirst);
    expect(await read.history()).toHaveLength(2);
    // The same delivery message twice: QStash's deduplication id (the turn id) and the ledger make it one.
    const message = { tenantId: ctx.config.tenantId, turnId: ctx.turnId };
    expect(deps.published).toEqual([message, message]);
  });

  it('a second run after the entry was delivered (no longer pending) publishes nothing', async () => {
    const { ctx, deps, commit } = setup();
    await commit(decision({ commit: [action('first', 'none')] }));
    await session().one((r) => r.zrem(tenantKeys(ctx.config.tenantId).outboxPending, ctx.turnId));
    const second = await commit(decision({ commit: [action('second', 'none')] }));
    expect(second.committed.map((a) => a.args.tag)).toEqual(['first']);
    expect(deps.published).toHaveLength(1);
  });

  it('a second run of a turn committed without an entry answers the stored reply and publishes nothing', async () => {
    const { deps, commit } = setup();
    await commit(decision({ decision: 'veto', reply: { text: 'FALLBACK ONE', quickReplies: [] } }));
    const second = await commit(decision({ reply: { text: 'Other.', quickReplies: [] } }));
    expect(second).toMatchObject({ decision: 'veto', reply: { text: 'FALLBACK ONE' } });
    expect(deps.published).toEqual([]);
  });

  it('nothing to perform (a veto): the record and history are written, no outbox entry, no publish', async () => {
    const { deps, commit, read } = setup();
    const record = await commit(
      decision({ decision: 'veto', reason: 'content: x', reply: { text: 'FALLBACK', quickReplies: [] } }),
    );
    expect(record.committed).toEqual([]);
    expect((await read.record())?.decision).toBe('veto');
    expect(await read.entry()).toBeNull();
    expect(await read.pending()).toBe(false);
    expect(deps.published).toEqual([]);
  });

  it('a veto: the reply says, after the fallback, which staged writes were not done (the record and history too)', async () => {
    const { ctx, read } = setup();
    const d = decision({ decision: 'veto', reason: 'claims: x', reply: { text: 'FALLBACK', quickReplies: [] } });
    const record = await commitTurn(stageDeps(), ctx, d, { ...draftFor(ctx, d), staged: [action('vip', 'none')] });
    expect(record.reply.text).toBe('FALLBACK\n\nNot done: add tag "vip".');
    expect(record.committed).toEqual([]);
    expect((await read.history()).at(-1)?.text).toBe('FALLBACK\n\nNot done: add tag "vip".');
  });

  it("the agent's reply joins the history only when the decision says so; a message without text adds none", async () => {
    const silent = setup();
    await silent.commit(
      decision({
        reply: { text: '', quickReplies: [] },
        replyRoute: 'none',
        recordAgentReply: false,
        decision: 'escalate',
      }),
    );
    expect((await silent.read.history()).map((h) => h.role)).toEqual(['contact']);
    const empty = setup({ text: '' });
    await empty.commit(decision());
    expect(await empty.read.history()).toEqual([]);
  });

  it('an escalation silences the model for the contact until handoffUntil', async () => {
    const { config, ctx, commit } = setup();
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await commit(decision({ decision: 'escalate', handoffUntil: until }));
    expect(await session().one((r) => r.get(tenantKeys(config.tenantId).handoff(ctx.inbound.contactId)))).toBe(until);
    const ttl = await session().one((r) => r.ttl(tenantKeys(config.tenantId).handoff(ctx.inbound.contactId)));
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
  });
});

describe('commitTurn: gated actions become pinned rows', () => {
  it('a confirmation: pinned (pending, not committed), and the reply carries Yes/No bound to its row and nonce', async () => {
    const { config, commit, read } = setup();
    const gated = action('newsletter', 'confirm');
    const record = await commit(
      decision({ reply: { text: 'Shall I?', quickReplies: [{ caption: 'Maybe' }] }, pin: [gated] }),
    );
    expect(record.pendingConfirmation).toMatch(/^cf_/);
    const pinned = await loadPinned(session(), config.tenantId, record.pendingConfirmation!);
    expect(pinned?.status).toBe('pending');
    expect(pinned?.terms.actions).toEqual([gated]);
    const { nonce } = pinned!.terms;
    expect(record.reply.quickReplies).toEqual([
      { caption: 'Yes', callback: { pendingId: record.pendingConfirmation, answer: 'yes', nonce } },
      { caption: 'No', callback: { pendingId: record.pendingConfirmation, answer: 'no', nonce } },
    ]);
    expect((await read.record())?.reply.quickReplies).toEqual(record.reply.quickReplies);
    expect(record.committed).toEqual([]);
    expect(await read.entry()).toBeNull();
  });

  it('an approval: one queued row per action, no buttons; the ungated actions still commit', async () => {
    const { config, commit, read } = setup();
    const open = action('open', 'none');
    const record = await commit(
      decision({ commit: [open], pin: [action('wipe_a', 'approval'), action('wipe_b', 'approval')] }),
    );
    expect(record.approvals).toHaveLength(2);
    expect(record.reply.quickReplies).toEqual([]);
    const queue = (await session().one((r) => r.zrange(tenantKeys(config.tenantId).approvalQueue, 0, -1))) as string[];
    expect([...queue].sort()).toEqual([...record.approvals].sort());
    expect((await read.entry())?.actions).toEqual([open]);
  });
});

describe('commitTurn: a deferred reply goes first, through the outbox', () => {
  it('the reply is a send_content action ahead of the actions, performed at most once', async () => {
    const { ctx, commit, read } = setup({ deferred: true });
    const later = [action('one', 'none'), action('two', 'none')];
    const record = await commit(decision({ commit: later, replyRoute: 'outbox' }));
    const reply: StagedAction = {
      id: `${ctx.turnId}.reply`,
      tool: 'system:deferred-reply',
      kind: 'send_content',
      args: { text: 'Done soon.' },
      effect: 'write',
      idempotent: false,
      gate: 'none',
      summary: 'send the deferred reply',
    };
    expect(record.committed).toEqual([reply, ...later]);
    expect((await read.entry())?.actions).toEqual([reply, ...later]);
    expect(record.deferred).toBe(true);
  });

  it('its buttons go with it, signed: a confirmation Yes/No that verifies, bound to the contact', async () => {
    const { config, ctx, commit } = setup({ deferred: true, deps: { callbackUrl: CALLBACK_URL } });
    const record = await commit(decision({ pin: [action('newsletter', 'confirm')], replyRoute: 'outbox' }));
    const [send] = record.committed;
    const buttons = send!.args.quickReplies as {
      caption: string;
      url: string;
      payload: { contact: { id: string }; callback: Record<string, string>; sig: string };
    }[];
    expect(buttons.map((b) => [b.caption, b.url, b.payload.contact.id, b.payload.callback.answer])).toEqual([
      ['Yes', CALLBACK_URL, ctx.inbound.contactId, 'yes'],
      ['No', CALLBACK_URL, ctx.inbound.contactId, 'no'],
    ]);
    for (const b of buttons) {
      const claim = {
        kind: 'confirm',
        tenantId: config.tenantId,
        contactId: ctx.inbound.contactId,
        pendingId: record.pendingConfirmation,
        ...b.payload.callback,
      } as CallbackClaim;
      expect(await verifyCallback(PIN_SECRET, claim, b.payload.sig)).toBe(true);
      expect(await verifyCallback(PIN_SECRET, { ...claim, contactId: '1' }, b.payload.sig)).toBe(false);
    }
  });

  it('without a callback URL the deferred reply is sent as text only', async () => {
    const { commit } = setup({ deferred: true });
    const record = await commit(
      decision({ reply: { text: 'Pick one', quickReplies: [{ caption: 'Yoga' }] }, replyRoute: 'outbox' }),
    );
    expect(record.committed[0]?.args).toEqual({ text: 'Pick one' });
  });

  it('a reply routed through the webhook is not added to the outbox', async () => {
    const { commit } = setup();
    expect((await commit(decision({ replyRoute: 'webhook' }))).committed).toEqual([]);
  });
});

describe('commitTurn: the publish is off the reply path and may fail', () => {
  function gatedPublisher() {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const state = { published: false };
    const publisher: OutboxPublisher = {
      publish: async () => {
        await gate;
        state.published = true;
      },
    };
    return { publisher, state, release };
  }

  it('given background work, the commit returns before QStash answers and hands the publish over', async () => {
    const { publisher, state, release } = gatedPublisher();
    const handed: Promise<unknown>[] = [];
    const { commit } = setup({ deps: { publisher, background: (w) => void handed.push(w) } });
    await commit(decision({ commit: [action('one', 'none')] }));
    expect(state.published).toBe(false);
    expect(handed).toHaveLength(1);
    release();
    await handed[0];
    expect(state.published).toBe(true);
  });

  it('without background work, the commit waits for the publish', async () => {
    const { publisher, state, release } = gatedPublisher();
    const { commit } = setup({ deps: { publisher } });
    setTimeout(release, 20);
    await commit(decision({ commit: [action('one', 'none')] }));
    expect(state.published).toBe(true);
  });

  it('a failed publish does not fail the turn: the entry stays pending for the sweeper', async () => {
    const { publisher, published } = recordingPublisher(true);
    const { commit, read } = setup({ deps: { publisher } });
    const record = await commit(decision({ commit: [action('one', 'none')] }));
    expect(record.decision).toBe('pass');
    expect(published).toHaveLength(1);
    expect(await read.pending()).toBe(true);
  });
});

describe('commitTurn: one row per call, and what the record says about the commit', () => {
  it('a gated call the contact already has a live row for reuses that row: no second row, the same buttons', async () => {
    const first = setup();
    const gated = action('newsletter', 'confirm');
    const earlier = await first.commit(decision({ pin: [gated] }));
    // The same contact stages the same call again in a later turn.
    const ctx2 = stageContext(first.config, { ...first.ctx.inbound, messageKey: `${first.ctx.inbound.messageKey}:2` });
    const again = { ...gated, id: 'a_newsletter_again' };
    const d = decision({ pin: [again] });
    const record = await commitTurn(first.deps, ctx2, d, draftFor(ctx2, d));
    expect(record.pendingConfirmation).toBe(earlier.pendingConfirmation);
    expect(record.notes).toContain(
      `a_newsletter_again is already waiting in ${earlier.pendingConfirmation}; no second row`,
    );
    expect(record.reply.quickReplies.map((q) => q.callback?.pendingId)).toEqual([
      earlier.pendingConfirmation,
      earlier.pendingConfirmation,
    ]);
    expect(record.approvals).toEqual([]);
  });

  it('a reused approval row is named again, not a confirmation', async () => {
    const first = setup();
    const gated = action('wipe', 'approval');
    const earlier = await first.commit(decision({ pin: [gated] }));
    const ctx2 = stageContext(first.config, { ...first.ctx.inbound, messageKey: `${first.ctx.inbound.messageKey}:2` });
    const d = decision({ pin: [{ ...gated, id: 'a_wipe_again' }, action('fresh', 'confirm')] });
    const record = await commitTurn(first.deps, ctx2, d, draftFor(ctx2, d));
    expect(record.approvals).toEqual(earlier.approvals);
    expect(record.pendingConfirmation).toMatch(/^cf_/);
    expect(record.pendingConfirmation).not.toBe(earlier.approvals[0]);
    // Only the reused approval: it is no confirmation.
    const ctx3 = stageContext(first.config, { ...first.ctx.inbound, messageKey: `${first.ctx.inbound.messageKey}:3` });
    const d3 = decision({ pin: [{ ...gated, id: 'a_wipe_third' }] });
    const third = await commitTurn(first.deps, ctx3, d3, draftFor(ctx3, d3));
    expect(third.pendingConfirmation).toBeNull();
    expect(third.approvals).toEqual(earlier.approvals);
  });

  it('approvals only: the rows are written, no confirmation', async () => {
    const { config, commit } = setup();
    const record = await commit(decision({ pin: [action('wipe_only', 'approval')] }));
    expect(record.pendingConfirmation).toBeNull();
    expect(record.approvals).toHaveLength(1);
    expect((await loadPinned(session(), config.tenantId, record.approvals[0]!))?.status).toBe('pending');
  });

  it('records the round trips and times it spent, never more than elapsed', async () => {
    const { ctx, deps, commit } = setup();
    // Round trips already spent in the turn are not the commit's.
    await deps.session.one((r) => r.ping());
    const before = deps.session.roundTrips;
    expect(before).toBeGreaterThan(0);
    const record = await commit(decision({ commit: [action('timed', 'none')] }));
    expect(record.redisRoundTrips.afterModel).toBe(deps.session.roundTrips - before);
    // The stored record counts the same round trips (counted ahead of its own write).
    expect(
      ((await stored(ctx.config.tenantId, (k) => k.turn(ctx.turnId))) as TurnRecord | null)?.redisRoundTrips.afterModel,
    ).toBe(record.redisRoundTrips.afterModel);
    expect(record.timings.totalMs).toBeGreaterThanOrEqual(0);
    expect(record.timings.totalMs).toBeLessThanOrEqual(Math.ceil(performance.now() - ctx.startedAt));
    expect(record.timings.commitMs).toBeGreaterThanOrEqual(0);
    expect(record.timings.commitMs).toBeLessThanOrEqual(Math.ceil(performance.now() - ctx.startedAt));
  });

  it('warns about a failed publish only, naming the turn; nothing to publish, nothing said', async () => {
    const warned: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void warned.push(args.map(String).join(' '));
    try {
      const ok = setup();
      await ok.commit(decision({ commit: [action('fine', 'none')] }));
      const none = setup();
      await none.commit(decision());
      expect(warned).toEqual([]);
      const failing = setup({ deps: { publisher: recordingPublisher(true).publisher } });
      await failing.commit(decision({ commit: [action('one', 'none')] }));
      expect(warned).toEqual([
        `QStash publish of turn ${failing.ctx.turnId} failed (QStash is down); the sweeper will publish it again`,
      ]);
    } finally {
      console.warn = original;
    }
  });
});

describe('commitTurn: the reply order of an ordered channel, the turn log, the rows written (issue 22)', () => {
  it("an ordered channel: the entry carries the message's place; a turn that delivers nothing leaves the contact's order at once", async () => {
    // Rule (reply order): a later reply waits for an earlier message's only while that message
    // still has something to deliver; one with nothing must not hold the contact's replies.
    const config = stageConfig();
    const deps = stageDeps();
    const contactId = String(1_000_000 + Math.floor(Math.random() * 1e9));
    const orderKey = tenantKeys(config.tenantId).replyOrder(contactId);
    const turn = async (text: string, d: TurnDecision) => {
      const inbound = inboundFor(config, text, { channel: 'messenger', contactId });
      const sequence = (await replySequenceOf(inbound))!;
      await enterReplyOrder(session(), config.tenantId, contactId, sequence);
      const ctx = stageContext(config, inbound);
      await commitTurn(deps, ctx, d, draftFor(ctx, d));
      return { sequence, entry: (await stored(config.tenantId, (k) => k.outbox(ctx.turnId))) as OutboxEntry | null };
    };
    const delivering = await turn('tag me', decision({ commit: [action('one', 'none')] }));
    expect(delivering.entry?.sequence).toEqual(delivering.sequence);
    const silent = await turn('thanks', decision({ decision: 'veto', reason: 'content: x' }));
    expect(silent.entry).toBeNull();
    // The delivering message stays in the order until its entry settles; the silent one left it.
    expect(await session().one((r) => r.zrange(orderKey, 0, -1))).toEqual([delivering.sequence.member]);
  });

  it('the turn log says whether this run wrote the turn', async () => {
    // Rule: a duplicate run that wrote nothing must not be counted as a committed turn in the logs.
    const lines: string[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
    try {
      const { ctx, commit } = setup();
      await commit(decision({ commit: [action('first', 'none')] }));
      await commit(decision({ commit: [action('second', 'none')] }));
      const written = lines
        .map((l) => JSON.parse(l) as { event?: string; turnId?: string; written?: boolean })
        .filter((l) => l.event === 'turn' && l.turnId === ctx.turnId)
        .map((l) => l.written);
      expect(written).toEqual([true, false]);
    } finally {
      console.log = original;
    }
  });

  it('a turn with approvals only writes its rows and nothing else (no stray confirmation row)', async () => {
    // Rule: the commit writes exactly the rows the turn pinned. A non-row in the list would be
    // written under the key prefix its missing tenant id gives ("t:undefined:").
    const stray = async () => (await session().one((r) => r.keys('t:undefined:*'))) as string[];
    const left = await stray();
    if (left.length) await session().one((r) => r.del(...left));
    const { config, commit } = setup();
    const record = await commit(decision({ pin: [action('wipe_rows', 'approval')] }));
    expect(await stray()).toEqual([]);
    expect((await loadPinned(session(), config.tenantId, record.approvals[0]!))?.status).toBe('pending');
  });
});

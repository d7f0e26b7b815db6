import type { StagedAction } from '../core/staged-action.js';
import { countDeliveryFailure } from '../core/storage/turn-metrics.js';
import type { RedisSession } from '../core/storage/redis-session.js';
import { retainedTtl, TTL } from '../core/storage/keys.js';
import { alertMarkerKeys } from '../core/storage/alert-markers.js';
import { actsIdempotently, deadLetterFor, DeadLetterSchema, salvagedLetters, type DeadLetter } from './dead-letters.js';
import {
  claimAction,
  isTerminal,
  markDead,
  markDone,
  markLost,
  markUnknown,
  releaseClaim,
  type Fence,
  type LedgerRef,
  type Transition,
} from './ledger.js';
import { actionKind } from '../core/actions/index.js';
import { actionNotAllowed } from '../core/tenant/action-allowed.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { REPLY_ORDER_RETRY_SECONDS, waitsForEarlierReply } from './reply-order.js';
import type { ApiFailure, ChannelApis } from '../core/actions/channel-api.js';
import type { LedgerRow, LedgerState, OutboxEntry } from '../core/outbox-entry.js';
import { outboxKeys, parseDelivery, queueDeliveryRead } from '../core/storage/outbox-store.js';
import { replyOrderKeys } from '../core/storage/reply-order.js';

/**
 * Performs one committed outbox entry's actions, in order, against ManyChat — exactly once where
 * that is possible and at most once where it is not.
 *
 * Concurrency: QStash delivers at least once, and the sweeper may publish an entry again, so
 * several deliveries of one entry can run at the same time. A per-entry lease (`SET NX PX`) lets
 * one of them work; the others answer `busy` (come back when the lease runs out) and QStash tries
 * them later, when they find the work done — or, if the holder died, take over. Each claim re-checks and renews the lease inside the ledger script, so a delivery that lost
 * its lease (an isolate frozen for longer than the lease) cannot start another call.
 *
 * Per action, by ledger state:
 * - done / dead / unknown: skipped.
 * - claimed at the start: an earlier delivery stopped between its claim and its result. A send
 *   (non-idempotent) becomes `unknown` — it may have happened, it is never resent, the tenant sees
 *   it in the dead-letter list. An idempotent action is claimed again and performed.
 * - pending / absent: claimed, then called:
 *   ok → done. 429/5xx → the claim is released (the API did not perform) and the delivery stops
 *   here to keep the order, answering `retry` with ManyChat's Retry-After. Permanent refusal →
 *   dead (with the API's words, listed for the tenant); later actions still run.
 *   Timeout / lost connection / unconfirmed 2xx: a send becomes `unknown` (at most once wins over
 *   at least once: ManyChat has no idempotency key, so a resend could deliver twice); an
 *   idempotent action is released and retried.
 * How each kind is performed on each channel, and whether it is idempotent, is the kind's own
 * business (core/actions/); this file only keeps the ledger.
 */

export type DeliveryOutcome = 'done' | 'retry' | 'busy' | 'not_found';

export interface DeliveredAction {
  id: string;
  kind: StagedAction['kind'];
  state: LedgerState;
  attempts: number;
  detail?: string;
}

export interface DeliveryResult {
  outcome: DeliveryOutcome;
  /** For `retry`: what ManyChat asked for, when it said. For `busy`: how soon to look again. */
  retryAfterSeconds?: number;
  /** The entry's state after this delivery (absent when not found). */
  entryState?: OutboxEntry['state'];
  actions: DeliveredAction[];
  /** For `not_found`: why. */
  problem?: string;
  /**
   * The dead letters this delivery wrote (an action it made dead or unknown; not one found so):
   * what the tenant is alerted of. Absent when none.
   */
  failures?: DeadLetter[];
  /** ManyChat answered 401/403 on the tenant's key: the key stopped working (an alert, once an outage). */
  keyRefused?: boolean;
  /** The actions this delivery brought to a final state (done, dead, unknown): each is reported once. Absent when none. */
  settled?: { id: string; state: LedgerState; detail?: string }[];
}

/** The marker of the current ManyChat-key outage alert; a call the key gets through with ends the outage. */
export const MANYCHAT_KEY_ALERT_ITEM = 'manychat-key';

export interface DeliverInput {
  session: RedisSession;
  tenantId: string;
  turnId: string;
  /** One client per channel the entry may be performed on. */
  apis: ChannelApis;
  now?: () => Date;
  /** Default 30 s; keep it well above the ManyChat client timeout. */
  leaseMs?: number;
  /**
   * The tenant's configuration now. A decided pending row's entry (a Yes, an approval) is checked
   * against it once more before each action is performed: what the tenant closed since the
   * decision (tool, resource, protection, a stronger gate) is dead, listed with why, not performed.
   */
  config?: TenantConfig;
  /**
   * For an entry that executes a decided pending row (a Yes, an approval): the row it came from is
   * read and its signature checked again, and each action must be one of the row's signed calls,
   * decided for it. Answers, per action, why it may not be performed (null: it may); an action
   * refused is dead, listed with why. Absent: no such check (the caller has no pinned rows).
   */
  signedRow?: (entry: OutboxEntry) => Promise<(action: StagedAction) => string | null>;
}

export const DEFAULT_LEASE_MS = 30_000;
/**
 * A busy delivery asks to come back when the holder's lease runs out, at least after this. Not a
 * fixed 1 s: if the holder died mid-delivery its lease stays for up to 30 s, and QStash's few
 * retries (5) would all be spent answering busy, leaving the entry to the sweeper. A duplicate of
 * a live delivery loses nothing by waiting: it only finds the work done.
 */
export const BUSY_RETRY_AFTER_SECONDS = 1;

function busyRetryAfter(remainingLeaseMs: unknown): number {
  // PTTL answers the ms left, or -1/-2 (no expiry / gone): those give the minimum; a reply that is
  // not a number (NaN) too.
  return Math.max(BUSY_RETRY_AFTER_SECONDS, Math.ceil(Number(remainingLeaseMs) / 1000) || 0);
}

/**
 * How long before its entry expires (its TTL: the outbox's, or the tenant's retention when
 * shorter) a still-retrying entry is given up. The sweeper publishes a pending entry every few
 * minutes, so an hour leaves it many deliveries to see the limit before the TTL drops it.
 */
export const GIVE_UP_BEFORE_EXPIRY_MS = 3600_000;

function giveUpAt(entry: OutboxEntry): number {
  return (
    Date.parse(entry.createdAt) + retainedTtl(TTL.outboxSeconds, entry.retentionDays) * 1000 - GIVE_UP_BEFORE_EXPIRY_MS
  );
}

/** Releases the lease only if it is still ours (compare-and-delete). */
const RELEASE_LEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

function failureText(r: ApiFailure): string {
  switch (r.kind) {
    case 'retryable':
      return `HTTP ${r.status}: ${r.message}${r.retryAfterSeconds !== undefined ? ` (Retry-After ${r.retryAfterSeconds} s)` : ''}`;
    case 'timeout':
      return r.message ?? 'no answer';
    case 'permanent':
      return `${r.status ? `HTTP ${r.status}` : 'not sent'}${r.code !== undefined ? ` code ${r.code}` : ''}: ${r.message}`;
  }
}

function summary(entry: OutboxEntry, rows: Map<string, LedgerRow>): DeliveredAction[] {
  return entry.actions.map((a) => {
    const row = rows.get(a.id);
    return {
      id: a.id,
      kind: a.kind,
      state: row?.state ?? 'pending',
      attempts: row?.attempts ?? 0,
      ...(row?.detail ? { detail: row.detail } : {}),
    };
  });
}

/**
 * The state the entry settles in once every action is done, dead or unknown (`failed` when any is
 * dead or unknown: the tenant has something to look at), or null while an action is left to perform.
 */
function settledState(entry: OutboxEntry, rows: Map<string, LedgerRow>): 'done' | 'failed' | null {
  const states = entry.actions.map((a) => rows.get(a.id)?.state);
  if (!states.every(isTerminal)) return null;
  return states.some((state) => state === 'dead' || state === 'unknown') ? 'failed' : 'done';
}

/** Either the answer (nothing this delivery may do), or the work: the entry and its ledger, with the lease held. */
type Opened = { result: DeliveryResult } | { entry: OutboxEntry; rows: Map<string, LedgerRow> };

/**
 * One round trip: try the lease (and see how long the holder's has left), read the entry and its
 * ledger. Answers at once when there is nothing this delivery may do.
 */
async function openDelivery(session: RedisSession, tenantId: string, turnId: string, fence: Fence): Promise<Opened> {
  const outbox = outboxKeys(tenantId);
  const [leaseReply, leasePttl, rawEntry, rawLedger] = await session.pipeline((p) => {
    p.set(fence.leaseKey, fence.token, { nx: true, px: fence.leaseMs });
    p.pttl(fence.leaseKey);
    queueDeliveryRead(p, tenantId, turnId);
  });
  const haveLease = leaseReply === 'OK';
  const stored = parseDelivery(rawEntry, rawLedger);
  if (!stored.entry) {
    // Expired or unreadable: nothing can ever deliver it, so it leaves the pending set (the
    // sweeper would otherwise publish it forever). An unreadable entry stays for inspection.
    // The release is a compare-and-delete with this delivery's token: without the lease it deletes nothing.
    const [removed] = await session.multi((m) => {
      m.zrem(outbox.pending, turnId);
      m.eval(RELEASE_LEASE_LUA, [fence.leaseKey], [fence.token]);
    });
    // What it held is listed, never silently gone: an unreadable entry's unperformed actions, or
    // (an entry that vanished while still pending) the entry itself. Through the ledger, so a
    // second delivery lists nothing again.
    const failures =
      stored.present || Number(removed) === 1
        ? await listLostActions(
            session,
            tenantId,
            turnId,
            stored.raw,
            stored.rows,
            stored.present ? 'unreadable' : 'gone',
          )
        : [];
    return {
      result: {
        outcome: 'not_found',
        actions: [],
        // Told to the tenant's channel like any dead letter (failure-alerts.ts).
        ...(failures.length ? { failures } : {}),
        problem: stored.present
          ? 'the stored outbox entry does not match its schema'
          : `no outbox entry for turn "${turnId}"`,
      },
    };
  }
  const { entry, rows } = stored;
  // Nothing left to perform: a repeated delivery is answered done whoever holds the lease. The
  // state is the rows' (a closed entry's state was written from these same rows by closeDelivery;
  // its rows change only through a re-drive, which sets the entry back to pending first).
  const settled = settledState(entry, rows);
  if (settled && (!haveLease || entry.state !== 'pending')) {
    if (haveLease) await session.one((r) => r.eval(RELEASE_LEASE_LUA, [fence.leaseKey], [fence.token]));
    return { result: { outcome: 'done', entryState: settled, actions: summary(entry, rows) } };
  }
  if (!haveLease)
    return {
      result: {
        outcome: 'busy',
        retryAfterSeconds: busyRetryAfter(leasePttl),
        entryState: entry.state,
        actions: summary(entry, rows),
      },
    };
  return { entry, rows };
}

async function listLostActions(
  session: RedisSession,
  tenantId: string,
  turnId: string,
  raw: unknown,
  rows: Map<string, LedgerRow>,
  why: 'unreadable' | 'gone',
): Promise<DeadLetter[]> {
  const now = new Date();
  const detail =
    why === 'unreadable'
      ? 'the stored outbox entry no longer matches its schema (written by another version?), so it cannot be delivered: not performed'
      : 'the outbox entry was gone while it was still pending (its retention ran out, or it was deleted): what it held, and whether it was performed, is not known';
  const retention = (raw as { retentionDays?: unknown } | null)?.retentionDays;
  const ref: LedgerRef = {
    session,
    tenantId,
    turnId,
    ...(Number.isInteger(retention) && (retention as number) > 0 ? { retentionDays: retention as number } : {}),
  };
  const listed: DeadLetter[] = [];
  for (const lost of salvagedLetters(tenantId, turnId, raw, rows, detail, now))
    if ((await markLost(ref, lost.actionId, now, lost.state, detail, lost.letter)).applied)
      listed.push(DeadLetterSchema.parse(JSON.parse(lost.letter)));
  return listed;
}

/** Why a delivery stops before the end of its entry; null from deliverAction means go on. */
type Stop = { outcome: 'retry'; retryAfterSeconds?: number } | { outcome: 'busy' };

interface ActionRun {
  ref: LedgerRef;
  fence: Fence;
  entry: OutboxEntry;
  apis: ChannelApis;
  now: () => Date;
  record: (id: string, t: Transition) => void;
  config?: TenantConfig;
  /** Why an action may not be performed by the signed row its entry executes (null: it may). */
  unsigned: (action: StagedAction) => string | null;
  /** What this delivery saw, for the caller's alerts and audit. */
  seen: {
    failures: DeadLetter[];
    keyRefused: boolean;
    keyWorked: boolean;
    settled: NonNullable<DeliveryResult['settled']>;
  };
}

/** An action performed with the tenant's ManyChat key (not a notification, not another channel's). */
function usesManyChatKey(entry: OutboxEntry, action: StagedAction): boolean {
  return entry.channel === 'manychat' && action.kind !== 'notify_webhook';
}

/** Records a dead/unknown transition and, when it applied, counts it on Health's hourly chart. */
async function recordFailure(run: ActionRun, actionId: string, t: Transition, letter: string): Promise<void> {
  run.record(actionId, t);
  if (!t.applied) return;
  const parsed = DeadLetterSchema.safeParse(JSON.parse(letter));
  if (parsed.success) run.seen.failures.push(parsed.data);
  // A chart's count must never fail the delivery it counts: the ledger already holds the truth.
  await countDeliveryFailure(run.ref.session, run.ref.tenantId, run.now()).catch((err: unknown) =>
    console.warn(
      `outbox: the delivery-failure count was not written (${err instanceof Error ? err.message : 'error'})`,
    ),
  );
}

/** One action through the ledger: claim, call, record. Answers why the delivery stops, or null to go on. */
async function deliverAction(run: ActionRun, action: StagedAction, row: LedgerRow | undefined): Promise<Stop | null> {
  const { ref, entry, now, record } = run;
  const idempotent = actsIdempotently(action);
  if (row?.state === 'claimed' && !idempotent) {
    const detail =
      'an earlier delivery claimed this send and recorded no result (it stopped between the claim and the answer); it may have been performed, so it is not resent';
    const letter = deadLetterFor(entry, action, 'unknown', detail, now());
    await recordFailure(run, action.id, await markUnknown(ref, action.id, now(), detail, letter), letter);
    return null;
  }
  const unsigned = action.tool.startsWith('system:') ? null : run.unsigned(action);
  if (unsigned) {
    const why = `not performed: ${unsigned}`;
    const letter = deadLetterFor(entry, action, 'dead', why, now());
    await recordFailure(run, action.id, await markDead(ref, action.id, now(), why, letter), letter);
    return null;
  }
  const refusal = run.config && entry.stagedByTurnId ? actionNotAllowed(action, run.config) : null;
  if (refusal && !action.tool.startsWith('system:')) {
    const why = `not performed: the tenant's configuration no longer allows it (${refusal})`;
    const letter = deadLetterFor(entry, action, 'dead', why, now());
    const t = await markDead(ref, action.id, now(), why, letter);
    record(action.id, t);
    if (t.applied) run.seen.failures.push(DeadLetterSchema.parse(JSON.parse(letter)));
    return null;
  }
  const claim = await claimAction(ref, action.id, now(), { reclaim: idempotent, fence: run.fence });
  record(action.id, claim);
  if (!claim.applied) {
    // Lease lost, or another delivery moved the row: stop and let QStash come back.
    if (claim.reason === 'lease' || !isTerminal(claim.row?.state)) return { outcome: 'busy' };
    return null;
  }
  const result = await actionKind(action.kind).perform(entry.channel, run.apis, entry.contactId, action.args, {
    ...(entry.surface ? { surface: entry.surface } : {}),
    ...(entry.lastInboundAt ? { lastInboundAt: entry.lastInboundAt } : {}),
  });
  if (result.ok) {
    if (usesManyChatKey(entry, action) && !result.note) run.seen.keyWorked = true;
    record(action.id, await markDone(ref, action.id, now(), result.note));
    return null;
  }
  const detail = failureText(result);
  if (result.kind === 'permanent' && (result.status === 401 || result.status === 403) && usesManyChatKey(entry, action))
    run.seen.keyRefused = true;
  if (result.kind === 'retryable' || (result.kind === 'timeout' && idempotent)) {
    record(action.id, await releaseClaim(ref, action.id, now(), detail));
    return { outcome: 'retry', retryAfterSeconds: result.kind === 'retryable' ? result.retryAfterSeconds : undefined };
  }
  if (result.kind === 'timeout') {
    const why = `${detail}; the call may have been performed, so it is not resent`;
    const letter = deadLetterFor(entry, action, 'unknown', why, now());
    await recordFailure(run, action.id, await markUnknown(ref, action.id, now(), why, letter), letter);
    return null;
  }
  const letter = deadLetterFor(entry, action, 'dead', detail, now());
  await recordFailure(run, action.id, await markDead(ref, action.id, now(), detail, letter), letter);
  return null;
}

export async function deliverOutboxEntry(input: DeliverInput): Promise<DeliveryResult> {
  const { session, tenantId, turnId } = input;
  const now = input.now ?? (() => new Date());
  const fence: Fence = {
    leaseKey: outboxKeys(tenantId).lease(turnId),
    token: crypto.randomUUID(),
    leaseMs: input.leaseMs ?? DEFAULT_LEASE_MS,
  };
  const opened = await openDelivery(session, tenantId, turnId, fence);
  if ('result' in opened) return opened.result;
  const { entry, rows } = opened;
  if (!rows.size && (await waitsForEarlierReply(session, entry, now()))) {
    // An earlier message of this contact still waits for its reply: this one goes after it.
    await session.one((r) => r.eval(RELEASE_LEASE_LUA, [fence.leaseKey], [fence.token]));
    return {
      outcome: 'retry',
      retryAfterSeconds: REPLY_ORDER_RETRY_SECONDS,
      entryState: entry.state,
      actions: summary(entry, rows),
    };
  }
  const run: ActionRun = {
    ref: { session, tenantId, turnId, ...(entry.retentionDays ? { retentionDays: entry.retentionDays } : {}) },
    fence,
    entry,
    apis: input.apis,
    now,
    ...(input.config ? { config: input.config } : {}),
    unsigned: input.signedRow ? await input.signedRow(entry) : () => null,
    record: (id, t) => {
      if (t.row) rows.set(id, t.row);
      if (t.applied && isTerminal(t.row.state))
        run.seen.settled.push({ id, state: t.row.state, ...(t.row.detail ? { detail: t.row.detail } : {}) });
    },
    seen: { failures: [], keyRefused: false, keyWorked: false, settled: [] },
  };
  let stop: Stop | null = null;
  for (const action of entry.actions) {
    const row = rows.get(action.id);
    if (isTerminal(row?.state)) continue;
    stop = await deliverAction(run, action, row);
    if (stop) break;
  }
  // Still retrying as the entry's retention runs out: its TTL would drop it, and its actions with
  // it, unlisted. Given up now instead: each action left is dead, with why, for the tenant to see.
  if (stop?.outcome === 'retry' && now().getTime() >= giveUpAt(entry)) {
    const days = Math.round(retainedTtl(TTL.outboxSeconds, entry.retentionDays) / 86_400);
    for (const action of entry.actions) {
      const row = rows.get(action.id);
      if (isTerminal(row?.state)) continue;
      const why = `still retrying when the tenant's retention (${days} days) ran out: given up, not performed${row?.detail ? ` (last: ${row.detail})` : ''}`;
      const letter = deadLetterFor(entry, action, 'dead', why, now());
      await recordFailure(run, action.id, await markDead(run.ref, action.id, now(), why, letter), letter);
    }
    stop = null;
  }
  if (stop?.outcome === 'busy') {
    // Not ours any more (or never settled): leave the entry to the delivery that holds the lease.
    await session.one((r) => r.eval(RELEASE_LEASE_LUA, [fence.leaseKey], [fence.token]));
    return {
      outcome: 'busy',
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
      entryState: entry.state,
      actions: summary(entry, rows),
      ...seenResult(run.seen),
    };
  }
  const closed = await closeDelivery(
    session,
    tenantId,
    turnId,
    fence,
    entry,
    rows,
    stop?.outcome === 'retry' ? stop.retryAfterSeconds : undefined,
    // The key got through: its outage (if one was alerted) is over, and the next one alerts again.
    run.seen.keyWorked && !run.seen.keyRefused ? alertMarkerKeys(tenantId).marker(MANYCHAT_KEY_ALERT_ITEM) : undefined,
  );
  return { ...closed, ...seenResult(run.seen) };
}

function seenResult(seen: ActionRun['seen']): Pick<DeliveryResult, 'failures' | 'keyRefused' | 'settled'> {
  return {
    ...(seen.failures.length ? { failures: seen.failures } : {}),
    ...(seen.keyRefused ? { keyRefused: true } : {}),
    ...(seen.settled.length ? { settled: seen.settled } : {}),
  };
}

/** Writes the entry's state after this delivery and lets the lease go, in one MULTI. */
async function closeDelivery(
  session: RedisSession,
  tenantId: string,
  turnId: string,
  fence: Fence,
  entry: OutboxEntry,
  rows: Map<string, LedgerRow>,
  retryAfterSeconds: number | undefined,
  /** A key to delete in the same MULTI (the ManyChat-key alert marker, when the key worked). */
  clearKey?: string,
): Promise<DeliveryResult> {
  const outbox = outboxKeys(tenantId);
  const settled = settledState(entry, rows);
  const next: OutboxEntry = { ...entry, state: settled ?? 'pending', attempts: entry.attempts + 1 };
  await session.multi((m) => {
    m.set(outbox.entry(turnId), JSON.stringify(next), { keepTtl: true });
    if (settled) m.zrem(outbox.pending, turnId);
    // Settled: the contact's later replies no longer wait for this one.
    if (settled && entry.sequence) m.zrem(replyOrderKeys(tenantId).contact(entry.contactId), entry.sequence.member);
    if (clearKey) m.del(clearKey);
    m.eval(RELEASE_LEASE_LUA, [fence.leaseKey], [fence.token]);
  });
  const actions = summary(next, rows);
  if (settled) return { outcome: 'done', entryState: next.state, actions };
  // Retry-After only when the API said (the route then sends it on).
  return {
    outcome: 'retry',
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    entryState: next.state,
    actions,
  };
}

import { z } from 'zod';
import type { StagedAction } from '../core/staged-action.js';
import { parseJson, type RedisSession } from '../core/storage/redis-session.js';
import { tenantKeys } from '../core/storage/keys.js';
import { actsIdempotently, deadLetterFor } from './dead-letters.js';
import {
  claimAction,
  isTerminal,
  leaseKey,
  ledgerRowsFromReply,
  markDead,
  markDone,
  markUnknown,
  releaseClaim,
  type Fence,
  type LedgerRef,
  type Transition,
} from './ledger.js';
import type { ManyChatClient, ManyChatFailure, ManyChatResult } from './manychat-client.js';
import { OutboxEntrySchema, type LedgerRow, type LedgerState, type OutboxEntry } from '../core/outbox-entry.js';

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
 * - `live_chat`: ManyChat's public API (and so the sandbox) has no endpoint to assign a
 *   conversation to live chat; the action is recorded `done` with a note saying nothing was called.
 *   The handoff's visible effect is its tag (an ordinary add_tag action).
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
}

export interface DeliverInput {
  session: RedisSession;
  tenantId: string;
  turnId: string;
  manychat: ManyChatClient;
  now?: () => Date;
  /** Default 30 s; keep it well above the ManyChat client timeout. */
  leaseMs?: number;
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
  const ms = Number(remainingLeaseMs);
  return Number.isFinite(ms) && ms > 0 ? Math.max(BUSY_RETRY_AFTER_SECONDS, Math.ceil(ms / 1000)) : BUSY_RETRY_AFTER_SECONDS;
}

const LIVE_CHAT_NOTE = 'recorded only: the ManyChat public API has no live-chat assignment endpoint, so nothing was called';

/** Releases the lease only if it is still ours (compare-and-delete). */
const RELEASE_LEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

const ArgsByKind = {
  send_flow: z.object({ flowNs: z.string().min(1) }),
  send_content: z.object({
    text: z.string().min(1),
    messageTag: z.string().min(1).optional(),
    /** Signed buttons (ManyChat v2 quick replies) written by the turn; passed through as they are. */
    quickReplies: z.array(z.object({ type: z.literal('dynamic_block_callback'), caption: z.string().min(1).max(20), url: z.url(), method: z.literal('post'), payload: z.record(z.string(), z.unknown()) })).max(11).optional(),
  }),
  add_tag: z.object({ tag: z.string().min(1) }),
  remove_tag: z.object({ tag: z.string().min(1) }),
  set_field: z.object({ field: z.string().min(1), value: z.unknown() }),
  live_chat: z.object({}),
} as const;

type PerformResult = ManyChatResult & { note?: string };

/** One ManyChat call for one action. Arguments are checked first: a malformed action is never sent. */
async function perform(manychat: ManyChatClient, entry: OutboxEntry, action: StagedAction): Promise<PerformResult> {
  const refuse = (message: string): ManyChatFailure => ({ ok: false, kind: 'permanent', status: 0, message });
  if (entry.channel !== 'manychat') return refuse(`channel "${entry.channel}": outbox delivery is implemented for ManyChat only`);
  const contact = entry.contactId;
  switch (action.kind) {
    case 'send_flow': {
      const a = ArgsByKind.send_flow.safeParse(action.args);
      return a.success ? manychat.sendFlow(contact, a.data.flowNs) : refuse(`invalid send_flow arguments: ${z.prettifyError(a.error)}`);
    }
    case 'send_content': {
      const a = ArgsByKind.send_content.safeParse(action.args);
      return a.success ? manychat.sendContent(contact, { text: a.data.text, ...(a.data.quickReplies ? { quickReplies: a.data.quickReplies } : {}) }, a.data.messageTag) : refuse(`invalid send_content arguments: ${z.prettifyError(a.error)}`);
    }
    case 'add_tag':
    case 'remove_tag': {
      const a = ArgsByKind[action.kind].safeParse(action.args);
      if (!a.success) return refuse(`invalid ${action.kind} arguments: ${z.prettifyError(a.error)}`);
      return action.kind === 'add_tag' ? manychat.addTagByName(contact, a.data.tag) : manychat.removeTagByName(contact, a.data.tag);
    }
    case 'set_field': {
      const a = ArgsByKind.set_field.safeParse(action.args);
      if (!a.success || !('value' in action.args)) return refuse(`invalid set_field arguments: ${a.success ? 'value is required' : z.prettifyError(a.error)}`);
      return manychat.setCustomFieldByName(contact, a.data.field, a.data.value);
    }
    case 'live_chat':
      return { ok: true, note: LIVE_CHAT_NOTE };
  }
}

function failureText(r: ManyChatFailure): string {
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
    return { id: a.id, kind: a.kind, state: row?.state ?? 'pending', attempts: row?.attempts ?? 0, ...(row?.detail ? { detail: row.detail } : {}) };
  });
}

/** Every action is done, dead or unknown: nothing is left to perform. */
function allSettled(entry: OutboxEntry, rows: Map<string, LedgerRow>): boolean {
  return entry.actions.every((a) => {
    const state = rows.get(a.id)?.state;
    return state !== undefined && isTerminal(state);
  });
}

/** A settled entry is `failed` when any action is dead or unknown: the tenant has something to look at. */
function finalState(entry: OutboxEntry, rows: Map<string, LedgerRow>): 'done' | 'failed' {
  return entry.actions.some((a) => {
    const state = rows.get(a.id)?.state;
    return state === 'dead' || state === 'unknown';
  })
    ? 'failed'
    : 'done';
}

export async function deliverOutboxEntry(input: DeliverInput): Promise<DeliveryResult> {
  const { session, tenantId, turnId, manychat } = input;
  const now = input.now ?? (() => new Date());
  const leaseMs = input.leaseMs ?? DEFAULT_LEASE_MS;
  const keys = tenantKeys(tenantId);
  const lease = leaseKey(tenantId, turnId);
  const token = crypto.randomUUID();
  const fence: Fence = { leaseKey: lease, token, leaseMs };
  const ref: LedgerRef = { session, tenantId, turnId };

  // One round trip: try the lease (and see how long the holder's has left), read the entry and its ledger.
  const [leaseReply, leasePttl, rawEntry, rawLedger] = await session.pipeline((p) => {
    p.set(lease, token, { nx: true, px: leaseMs });
    p.pttl(lease);
    p.get(keys.outbox(turnId));
    p.hgetall(keys.ledger(turnId));
  });
  const haveLease = leaseReply === 'OK';
  const parsed = rawEntry == null ? null : OutboxEntrySchema.safeParse(parseJson(rawEntry));
  if (!parsed?.success) {
    // Expired or unreadable: nothing can ever deliver it, so it leaves the pending set (the
    // sweeper would otherwise publish it forever). An unreadable entry stays for inspection.
    await session.multi((m) => {
      m.zrem(keys.outboxPending, turnId);
      if (haveLease) m.eval(RELEASE_LEASE_LUA, [lease], [token]);
    });
    return { outcome: 'not_found', actions: [], problem: parsed ? 'the stored outbox entry does not match its schema' : `no outbox entry for turn "${turnId}"` };
  }
  const entry = parsed.data;
  const rows = ledgerRowsFromReply(rawLedger);
  const settled = allSettled(entry, rows);
  // Nothing left to perform: a repeated delivery is answered done whoever holds the lease.
  if (settled && (!haveLease || entry.state !== 'pending')) {
    if (haveLease) await session.one((r) => r.eval(RELEASE_LEASE_LUA, [lease], [token]));
    return { outcome: 'done', entryState: entry.state === 'pending' ? finalState(entry, rows) : entry.state, actions: summary(entry, rows) };
  }
  if (!haveLease) return { outcome: 'busy', retryAfterSeconds: busyRetryAfter(leasePttl), entryState: entry.state, actions: summary(entry, rows) };

  const record = (id: string, t: Transition) => {
    if (t.row) rows.set(id, t.row);
  };
  let stop: { outcome: 'retry'; retryAfterSeconds?: number } | { outcome: 'busy' } | null = null;

  for (const action of entry.actions) {
    const row = rows.get(action.id);
    if (row && isTerminal(row.state)) continue;
    const idempotent = actsIdempotently(action);

    if (row?.state === 'claimed' && !idempotent) {
      const detail = 'an earlier delivery claimed this send and recorded no result (it stopped between the claim and the answer); it may have been performed, so it is not resent';
      record(action.id, await markUnknown(ref, action.id, now(), detail, deadLetterFor(entry, action, 'unknown', detail, now())));
      continue;
    }

    const claim = await claimAction(ref, action.id, now(), { reclaim: idempotent, fence });
    record(action.id, claim);
    if (!claim.applied) {
      // Lease lost, or another delivery moved the row: stop and let QStash come back.
      if (claim.reason === 'lease' || !claim.row || !isTerminal(claim.row.state)) {
        stop = { outcome: 'busy' };
        break;
      }
      continue;
    }

    const result = await perform(manychat, entry, action);
    if (result.ok) {
      record(action.id, await markDone(ref, action.id, now(), result.note));
      continue;
    }
    const detail = failureText(result);
    if (result.kind === 'retryable' || (result.kind === 'timeout' && idempotent)) {
      record(action.id, await releaseClaim(ref, action.id, now(), detail));
      stop = { outcome: 'retry', ...(result.kind === 'retryable' && result.retryAfterSeconds !== undefined ? { retryAfterSeconds: result.retryAfterSeconds } : {}) };
      break;
    }
    if (result.kind === 'timeout') {
      const why = `${detail}; the call may have been performed, so it is not resent`;
      record(action.id, await markUnknown(ref, action.id, now(), why, deadLetterFor(entry, action, 'unknown', why, now())));
      continue;
    }
    record(action.id, await markDead(ref, action.id, now(), detail, deadLetterFor(entry, action, 'dead', detail, now())));
  }

  if (stop?.outcome === 'busy') {
    // Not ours any more (or never settled): leave the entry to the delivery that holds the lease.
    await session.one((r) => r.eval(RELEASE_LEASE_LUA, [lease], [token]));
    return { outcome: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS, entryState: entry.state, actions: summary(entry, rows) };
  }

  const allTerminal = allSettled(entry, rows);
  const next: OutboxEntry = { ...entry, state: allTerminal ? finalState(entry, rows) : 'pending', attempts: entry.attempts + 1 };
  await session.multi((m) => {
    m.set(keys.outbox(turnId), JSON.stringify(next), { keepTtl: true });
    if (allTerminal) m.zrem(keys.outboxPending, turnId);
    m.eval(RELEASE_LEASE_LUA, [lease], [token]);
  });
  const actions = summary(next, rows);
  if (allTerminal) return { outcome: 'done', entryState: next.state, actions };
  return { outcome: 'retry', ...(stop?.outcome === 'retry' && stop.retryAfterSeconds !== undefined ? { retryAfterSeconds: stop.retryAfterSeconds } : {}), entryState: next.state, actions };
}

import { actionKind } from '../core/actions/index.js';
import { ActionKindSchema, type StagedAction } from '../core/staged-action.js';
import type { RedisSession } from '../core/storage/redis-session.js';
import type { DeadLetter } from '../core/dead-letter.js';
import { readDeadLetters } from '../core/storage/dead-letter-list.js';
import { resetForRedrive } from './ledger.js';
import { readEntryAction, readLedgerRows, reopenOutboxEntry } from '../core/storage/outbox-store.js';
import { LedgerStateSchema, type LedgerState, type OutboxEntry } from '../core/outbox-entry.js';
import type { OutboxPublisher } from './publisher.js';
import { outboxDueAt } from '../core/storage/due-index.js';

/**
 * The tenant's dead letters (newest first, the dead-letter store's list,
 * core/storage/dead-letter-list.ts): actions delivery gave up on. `dead` = the API refused them for
 * good; `unknown` = a send that may or may not have happened (never resent automatically). The
 * ledger script pushes an item in the same step that makes the row dead/unknown, and a re-drive
 * takes it off in the same step that resets the row.
 */
export { DeadLetterSchema, type DeadLetter } from '../core/dead-letter.js';

/** Whether the action may be repeated safely: the flag, and never for a send kind whatever the flag says. */
export function actsIdempotently(action: Pick<StagedAction, 'idempotent' | 'kind'>): boolean {
  return action.idempotent && actionKind(action.kind).idempotent;
}

export function deadLetterFor(
  entry: OutboxEntry,
  action: StagedAction,
  state: 'dead' | 'unknown',
  detail: string,
  at: Date,
): string {
  const letter: DeadLetter = {
    tenantId: entry.tenantId,
    turnId: entry.stagedByTurnId ?? entry.turnId,
    entryId: entry.turnId,
    actionId: action.id,
    contactId: entry.contactId,
    kind: action.kind,
    tool: action.tool,
    summary: action.summary,
    idempotent: actsIdempotently(action),
    state,
    detail,
    at: at.toISOString(),
  };
  return JSON.stringify(letter);
}

/**
 * The letters for an entry that no longer parses: one per action whose id can still be read and
 * that was not performed (its ledger row is not done) nor already listed (dead, unknown), with
 * what can be read of it. `claimed` ones may have been performed: unknown; the others dead. An
 * entry with no readable action gives one letter for the entry (`<entry>.entry`).
 */
export function salvagedLetters(
  tenantId: string,
  entryId: string,
  raw: unknown,
  rows: ReadonlyMap<string, { state: LedgerState }>,
  why: string,
  at: Date,
): { actionId: string; state: 'dead' | 'unknown'; letter: string }[] {
  const obj = (v: unknown): Record<string, unknown> =>
    v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v.slice(0, 500) : fallback);
  const entry = obj(raw);
  const actions = (Array.isArray(entry.actions) ? entry.actions : []).map(obj).filter((a) => typeof a.id === 'string');
  const wanted = actions.length ? actions : [{ id: `${entryId}.entry`, summary: 'the whole outbox entry' }];
  return wanted.flatMap((a) => {
    const actionId = a.id as string;
    const current = rows.get(actionId)?.state;
    if (current === 'done' || current === 'dead' || current === 'unknown') return [];
    const state = current === 'claimed' || !actions.length ? 'unknown' : 'dead';
    const kind = ActionKindSchema.safeParse(a.kind);
    const letter: DeadLetter = {
      tenantId,
      turnId: str(entry.stagedByTurnId, str(entry.turnId, entryId)),
      entryId,
      actionId,
      contactId: str(entry.contactId, ''),
      ...(kind.success ? { kind: kind.data } : {}),
      tool: str(a.tool, 'unknown'),
      summary: str(a.summary, 'an action of an unreadable entry'),
      idempotent: false,
      state,
      detail: why,
      at: at.toISOString(),
    };
    return [{ actionId, state, letter: JSON.stringify(letter) }];
  });
}

export interface ListedDeadLetter extends DeadLetter {
  /** The ledger's state now (the item records the state when it was listed); null if the row expired. */
  currentState: LedgerState | null;
}

/** The newest `limit` dead letters with the current ledger state of each (two round trips). */
export async function listDeadLetters(
  session: RedisSession,
  tenantId: string,
  limit = 100,
): Promise<ListedDeadLetter[]> {
  const letters = await readDeadLetters(session, tenantId, limit);
  if (!letters.length) return [];
  const rows = await readLedgerRows(
    session,
    tenantId,
    letters.map((l) => ({ entryId: l.entryId ?? l.turnId, actionId: l.actionId })),
  );
  return letters.map((l, i) => ({ ...l, currentState: rows[i]?.state ?? null }));
}

export type RedriveResult =
  | { ok: true; turnId: string; actionId: string; state: 'pending'; published: boolean; publishError?: string }
  | { ok: false; status: 404 | 409; error: string };

export interface RedriveInput {
  session: RedisSession;
  publisher: OutboxPublisher;
  tenantId: string;
  turnId: string;
  actionId: string;
  /** Required to re-drive a non-idempotent action whose outcome is `unknown`: it may be sent twice. */
  sendAnyway?: boolean;
  now?: Date;
}

/**
 * Puts one dead or unknown action back to `pending` and asks QStash to deliver its entry.
 * - `dead`: the API refused it, so it did not happen; re-driving is safe for every kind.
 * - `unknown`: an idempotent action may simply run again; a send (flow, content) only with
 *   `sendAnyway`, because the contact may already have it.
 * Order matters for crash safety: the entry is made pending first (a crash there leaves a pending
 * entry whose actions are all terminal, which the next delivery closes again), then the row is
 * reset and taken off the list in one script, then the entry is published.
 *
 * The publish carries its own deduplication label (QStash's window would swallow a reuse of the
 * turn's id); the dead-letter API also delivers at once so the tenant sees the result.
 */
export async function redriveDeadLetter(input: RedriveInput): Promise<RedriveResult> {
  const { session, tenantId, turnId, actionId } = input;
  const now = input.now ?? new Date();
  const { entry, row } = await readEntryAction(session, tenantId, turnId, actionId);
  if (!entry) return { ok: false, status: 404, error: `no outbox entry for turn "${turnId}"` };
  const action = entry.actions.find((a) => a.id === actionId);
  if (!action) return { ok: false, status: 404, error: `turn "${turnId}" has no action "${actionId}"` };
  const state = LedgerStateSchema.safeParse(row?.state);
  if (!state.success || (state.data !== 'dead' && state.data !== 'unknown')) {
    return {
      ok: false,
      status: 409,
      error: `action "${actionId}" is ${state.success ? state.data : 'not started'}; only dead or unknown actions can be re-driven`,
    };
  }
  const allowed: ('dead' | 'unknown')[] = ['dead'];
  if (state.data === 'unknown') {
    if (!actsIdempotently(action) && input.sendAnyway !== true) {
      return {
        ok: false,
        status: 409,
        error: `action "${actionId}" (${action.kind}) may already have been performed; re-drive it with "sendAnyway": true to send it again anyway`,
      };
    }
    allowed.push('unknown');
  }

  await reopenOutboxEntry(session, tenantId, turnId, entry, now.getTime(), outboxDueAt(now.getTime()));
  const reset = await resetForRedrive({ session, tenantId, turnId }, actionId, now, allowed);
  if (!reset.applied)
    return {
      ok: false,
      status: 409,
      error: `action "${actionId}" changed state while being re-driven (now ${reset.row?.state ?? 'absent'})`,
    };
  try {
    await input.publisher.publish({ tenantId, turnId }, { attempt: `redrive${Date.now()}` });
    return { ok: true, turnId, actionId, state: 'pending', published: true };
  } catch (err) {
    // Not fatal: the entry is in the pending set and the sweeper publishes it again.
    return {
      ok: true,
      turnId,
      actionId,
      state: 'pending',
      published: false,
      publishError: err instanceof Error ? err.message : String(err),
    };
  }
}

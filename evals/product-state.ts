import type { TurnRecord } from '../core/turn-record.js';
import { tenantKeys } from '../core/storage/keys.js';
import { parseJson } from '../core/storage/redis-session.js';
import type { EvalEnvironment } from './environment.js';
import type { ActionView, PendingView } from './observed.js';

/**
 * What the Worker left in Redis, read through the Upstash REST bridge: turn records, pinned rows
 * (confirmations and approvals) and outbox entries. Read-only, except `readRowTerms`'s callers in
 * advance-expiry.ts.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function readRecord(
  env: EvalEnvironment,
  tenantId: string,
  turnId: string,
  waitMs: number,
): Promise<TurnRecord | null> {
  const key = tenantKeys(tenantId).turn(turnId);
  const until = Date.now() + waitMs;
  for (;;) {
    const raw = await env.session.one((r) => r.get(key));
    if (raw != null) return parseJson(raw) as TurnRecord;
    if (Date.now() > until) return null;
    await sleep(50);
  }
}

/** The stored terms of a pinned row as the product wrote them (parsed JSON), and its status. */
export interface StoredRow {
  raw: string;
  terms: {
    id: string;
    kind: 'confirmation' | 'approval';
    contactId: string;
    pinned: { tool: string; args: string }[];
    createdAt: string;
    expiresAt: string;
  } & Record<string, unknown>;
  status: string | null;
}

export async function readRow(env: EvalEnvironment, tenantId: string, id: string): Promise<StoredRow | null> {
  const keys = tenantKeys(tenantId);
  const [raw, status] = await env.session.pipeline((p) => {
    p.get(keys.pinnedTerms(id));
    p.get(keys.pinnedStatus(id));
  });
  if (typeof raw !== 'string') return null;
  const terms = parseJson(raw) as StoredRow['terms'] | null;
  return terms ? { raw, terms, status: typeof status === 'string' ? status : null } : null;
}

function parseArgs(canonical: string): Record<string, unknown> {
  const parsed = parseJson(canonical);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : { '(unreadable pinned args)': canonical };
}

/**
 * One view per pinned call of each row, in the order the ids are given (a missing row gives none).
 * With `createdBy`, only rows that turn created: a turn may point the contact to a row an earlier
 * turn created for the same call (one pending row per call), which it did not create.
 */
export async function readPendingViews(
  env: EvalEnvironment,
  tenantId: string,
  ids: string[],
  createdBy?: string,
): Promise<PendingView[]> {
  const views: PendingView[] = [];
  for (const id of ids) {
    const row = await readRow(env, tenantId, id);
    if (!row || (createdBy !== undefined && row.terms.turnId !== createdBy)) continue;
    for (const call of row.terms.pinned ?? []) {
      views.push({
        id,
        kind: row.terms.kind,
        tool: call.tool,
        args: parseArgs(call.args),
        status: row.status ?? '(no status)',
        createdAt: row.terms.createdAt,
        expiresAt: row.terms.expiresAt,
      });
    }
  }
  return views;
}

/** Statuses of the case's named rows (null: not in Redis). */
export async function readNamedStatuses(
  env: EvalEnvironment,
  tenantId: string,
  named: Map<string, string>,
): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const [name, id] of named) out[name] = (await readRow(env, tenantId, id))?.status ?? null;
  return out;
}

/** Which of these outbox entries exist. */
export async function existingOutboxEntries(
  env: EvalEnvironment,
  tenantId: string,
  entryIds: string[],
): Promise<Set<string>> {
  const keys = tenantKeys(tenantId);
  const found = await env.session.pipeline((p) => {
    for (const id of entryIds) p.exists(keys.outbox(id));
  });
  return new Set(entryIds.filter((_, i) => Number(found[i]) > 0));
}

/** The actions of the given outbox entries, in the order given. */
export async function readOutboxActions(
  env: EvalEnvironment,
  tenantId: string,
  entryIds: string[],
): Promise<ActionView[]> {
  const out: ActionView[] = [];
  for (const id of entryIds) {
    const raw = await env.session.one((r) => r.get(tenantKeys(tenantId).outbox(id)));
    const entry = parseJson(raw) as { actions?: ActionView[] } | null;
    for (const a of entry?.actions ?? []) out.push({ kind: a.kind, tool: a.tool, args: a.args });
  }
  return out;
}

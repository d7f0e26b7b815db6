import type { PendingExpect } from './case-expect-schema.js';
import { formatPending, j, list, type Observed, type PendingView } from './observed.js';
import { durationMs } from './relative-time.js';

/** Checks of the pinned rows: the rows a turn created (`pending`) and named rows' statuses (`rows`). */

const EXPIRY_TOLERANCE_MS = 60_000;

/** A row must carry a readable expiry after its creation, whether or not the case asks for one. */
function hasExpiry(p: PendingView): boolean {
  const created = Date.parse(p.createdAt);
  const expires = Date.parse(p.expiresAt);
  return Number.isFinite(created) && Number.isFinite(expires) && expires > created;
}

function pendingMatches(e: PendingExpect, p: PendingView): boolean {
  if (e.kind !== p.kind || !hasExpiry(p)) return false;
  if (e.tool !== undefined && e.tool !== p.tool) return false;
  if (e.status !== undefined && e.status !== p.status) return false;
  for (const [k, v] of Object.entries(e.args ?? {})) if (j(p.args[k]) !== j(v)) return false;
  if (e.expiresIn !== undefined) {
    const lifetime = Date.parse(p.expiresAt) - Date.parse(p.createdAt);
    if (Math.abs(lifetime - durationMs(e.expiresIn)!) > EXPIRY_TOLERANCE_MS) return false;
  }
  return true;
}

function formatExpectedPending(e: PendingExpect): string {
  const args = e.args && Object.keys(e.args).length ? j(e.args) : '';
  return `${e.kind} ${e.tool ?? '*'}${args}${e.status ? ` ${e.status}` : ''}${e.expiresIn ? `, expires in ${e.expiresIn}` : ', with an expiry'}`;
}

export function checkPending(expected: PendingExpect[] | undefined, o: Observed): string[] {
  if (!expected) return [];
  const ok = expected.length === o.pending.length && expected.every((e, i) => pendingMatches(e, o.pending[i]!));
  return ok
    ? []
    : [`pending: expected ${list(expected.map(formatExpectedPending))}, got ${list(o.pending.map(formatPending))}`];
}

export function checkRows(expected: Record<string, string> | undefined, o: Observed): string[] {
  const f: string[] = [];
  for (const [name, status] of Object.entries(expected ?? {})) {
    if (!(name in o.rows))
      f.push(`rows: expected row "${name}" to be ${status}, but no earlier turn named a row "${name}" (pending[].as)`);
    else if (o.rows[name] !== status)
      f.push(`rows: expected row "${name}" to be ${status}, got ${o.rows[name] ?? 'no row in Redis'}`);
  }
  return f;
}

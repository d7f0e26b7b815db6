import { signTerms, type PinnedTerms } from '../core/pinned-terms.js';
import { DUE_INDEX_KEY, tenantKeys } from '../core/storage/keys.js';
import type { CaseWorld, EvalEnvironment } from './environment.js';
import type { DeliveryView } from './observed.js';
import { readRow } from './product-state.js';

/**
 * Expiry without waiting an hour. The eval plays the clock: it moves a row's time into the past —
 * its creation and expiry in the terms (which the decision script compares with now), re-signed
 * with the Worker's SESSION_SECRET as the product would have signed them, and its score in the
 * tenant's approval queue (which the cron reads) — and then runs the Worker's own `scheduled`
 * handler the way wrangler allows locally (`/cdn-cgi/local/scheduled`, always on in
 * `wrangler dev`). Nothing else about the row changes: same id, tool, arguments, status, TTL.
 */

/** Moves row `id` so that it expired a second ago. Returns a problem, or null. */
export async function moveRowPastExpiry(env: EvalEnvironment, world: CaseWorld, id: string): Promise<string | null> {
  const row = await readRow(env, world.tenantId, id);
  if (!row) return `expire: no pinned row ${id} in Redis`;
  const terms = row.terms as unknown as PinnedTerms;
  const shiftMs = Date.parse(terms.expiresAt) - Date.now() + 1000;
  if (!Number.isFinite(shiftMs)) return `expire: row ${id} has no readable expiry (${JSON.stringify(terms.expiresAt)})`;
  const { sig: _sig, pinned: _pinned, ...unsigned } = terms;
  const moved = await signTerms(
    {
      ...unsigned,
      createdAt: new Date(Date.parse(terms.createdAt) - shiftMs).toISOString(),
      expiresAt: new Date(Date.parse(terms.expiresAt) - shiftMs).toISOString(),
    },
    env.stack.workerEnv.SESSION_SECRET!,
  );
  const keys = tenantKeys(world.tenantId);
  await env.session.multi((m) => {
    m.set(keys.pinnedTerms(id), JSON.stringify(moved), { keepTtl: true, xx: true });
    if (terms.kind === 'approval') {
      m.zadd(keys.approvalQueue, { xx: true }, { score: Date.parse(moved.expiresAt), member: id });
      // Time moved for this row: the tenant's due time in the cron's index moves with it.
      m.zadd(DUE_INDEX_KEY, { lt: true }, { score: Date.parse(moved.expiresAt), member: world.tenantId });
    }
  });
  return null;
}

/** Runs the Worker's scheduled handler once (the cron's work: outbox sweep, approval expiry). */
export async function runCron(env: EvalEnvironment, timeoutMs = 30_000): Promise<DeliveryView> {
  const started = performance.now();
  try {
    const res = await fetch(`${env.workerUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent('* * * * *')}`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    return {
      status: res.status,
      ms: performance.now() - started,
      turnId: null,
      duplicateOf: null,
      deferred: false,
      replyText: null,
      ...(res.status >= 400 ? { error: text.slice(0, 300) } : {}),
    };
  } catch (err) {
    return {
      status: 0,
      ms: performance.now() - started,
      turnId: null,
      duplicateOf: null,
      deferred: false,
      replyText: null,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    };
  }
}

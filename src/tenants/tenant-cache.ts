import type { LoadedTenant } from '../http/app-context.js';

/**
 * The tenants this isolate has loaded, with the revision each was read at. Two uses:
 * - the webhook's fast path: a cached tenant authenticates the request with no round trip, and
 *   its revision is checked in the same round trip as the claim (a stale one is re-read and the
 *   request authenticated again — never used as current);
 * - when Redis does not answer: a webhook for a tenant the isolate knows is still authenticated
 *   and its message kept for later (an inbound retry through QStash) instead of lost.
 * The tenant API and every other route read the tenant fresh. A new isolate starts empty.
 *
 * Bounded by the bytes the tenants were stored as, not by their number: a count limit (it was
 * 500) both held too few small tenants — an isolate serving 1,000 demo-sized tenants in turn
 * missed on every request, 4 more Redis commands a turn (issue 34's scale run) — and let 500
 * large ones (a 60 KB menu each) take most of an isolate's 128 MB. A parsed config takes about
 * 1.4× its stored JSON in V8's heap (measured on the demo config: 3.7 KB stored, 5.3 KB of heap),
 * so the budget below is about 12 MB of heap for configs, ~2,200 demo-sized tenants. The least
 * recently used tenant goes first; a tenant larger than the whole budget is not kept.
 */
export interface CachedTenant {
  tenant: LoadedTenant;
  rev: number;
}

interface Entry extends CachedTenant {
  bytes: number;
}

/** Stored bytes (config + sealed secrets JSON) the isolate keeps at most. */
export const TENANT_CACHE_BYTES = 8 * 1024 * 1024;

const cache = new Map<string, Entry>();
let cachedBytes = 0;

function drop(id: string): void {
  const entry = cache.get(id);
  if (!entry) return;
  cache.delete(id);
  cachedBytes -= entry.bytes;
}

/** `storedBytes`: the length of the tenant's stored config and secrets, as read. */
export function rememberTenant(tenant: LoadedTenant, rev: number, storedBytes: number): void {
  const id = tenant.config.tenantId;
  drop(id);
  const bytes = Math.max(1, storedBytes);
  if (bytes > TENANT_CACHE_BYTES) return;
  // A Map iterates in insertion order: the first key is the least recently used.
  while (cachedBytes + bytes > TENANT_CACHE_BYTES) drop(cache.keys().next().value as string);
  cache.set(id, { tenant, rev, bytes });
  cachedBytes += bytes;
}

export function cachedTenant(tenantId: string): CachedTenant | null {
  const entry = cache.get(tenantId);
  if (!entry) return null;
  // Used now: to the back of the eviction order.
  cache.delete(tenantId);
  cache.set(tenantId, entry);
  return { tenant: entry.tenant, rev: entry.rev };
}

/** The tenant is gone (deleted): an isolate must not answer for it from memory. */
export function forgetTenant(tenantId: string): void {
  drop(tenantId);
}

/** For tests: forget everything (a fresh isolate). */
export function forgetTenants(): void {
  cache.clear();
  cachedBytes = 0;
}

/** For tests and the bench: how many tenants and stored bytes the isolate holds. */
export function tenantCacheSize(): { tenants: number; bytes: number } {
  return { tenants: cache.size, bytes: cachedBytes };
}

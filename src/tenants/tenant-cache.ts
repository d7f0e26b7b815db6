import type { LoadedTenant } from '../http/app-context.js';

/**
 * The tenants this isolate has loaded, with the revision each was read at. Two uses:
 * - the webhook's fast path: a cached tenant authenticates the request with no round trip, and
 *   its revision is checked in the same round trip as the claim (a stale one is re-read and the
 *   request authenticated again — never used as current);
 * - when Redis does not answer: a webhook for a tenant the isolate knows is still authenticated
 *   and its message kept for later (an inbound retry through QStash) instead of lost.
 * The tenant API and every other route read the tenant fresh. Bounded; a new isolate starts empty.
 */
export interface CachedTenant {
  tenant: LoadedTenant;
  rev: number;
}

const cache = new Map<string, CachedTenant>();
const LIMIT = 500;

export function rememberTenant(tenant: LoadedTenant, rev: number): void {
  const id = tenant.config.tenantId;
  cache.delete(id);
  if (cache.size >= LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(id, { tenant, rev });
}

export function cachedTenant(tenantId: string): CachedTenant | null {
  return cache.get(tenantId) ?? null;
}

/** The tenant is gone (deleted): an isolate must not answer for it from memory. */
export function forgetTenant(tenantId: string): void {
  cache.delete(tenantId);
}

/** For tests: forget everything (a fresh isolate). */
export function forgetTenants(): void {
  cache.clear();
}

import type { LoadedTenant } from '../http/app-context.js';

/**
 * The tenants this isolate has loaded, kept for when Redis does not answer: a webhook for a
 * tenant the isolate knows can still be authenticated (against the secrets it last read) and its
 * message kept for later (an inbound retry through QStash) instead of lost. Only ever a fallback:
 * while Redis answers, every request reads the tenant fresh. Bounded; a new isolate starts empty.
 */
const cache = new Map<string, LoadedTenant>();
const LIMIT = 500;

export function rememberTenant(tenant: LoadedTenant): void {
  const id = tenant.config.tenantId;
  cache.delete(id);
  if (cache.size >= LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(id, tenant);
}

export function cachedTenant(tenantId: string): LoadedTenant | null {
  return cache.get(tenantId) ?? null;
}

/** For tests: forget everything (a fresh isolate). */
export function forgetTenants(): void {
  cache.clear();
}

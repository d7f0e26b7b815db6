import type { Context } from 'hono';
import { verifyHashedSecret, type HashedSecret } from '../../../core/security/keyed-hash.js';
import { SecretKeyError } from '../../../core/security/secret-box.js';
import { isTenantId } from '../../../core/tenant/tenant-id.js';
import type { TenantSecrets } from '../../../core/tenant/tenant-secrets.js';
import { cachedTenant, forgetTenant, rememberTenant } from '../../tenants/tenant-cache.js';
import { loadTenant } from '../../tenants/tenant-store.js';
import type { AppContext, LoadedTenant } from '../app-context.js';
import { jsonError } from '../errors.js';

/**
 * The tenant a `:tenant` path names, in one Redis round trip (config and secrets), for the
 * authentication middleware to judge. Nothing here answers the caller: an unknown tenant, a
 * wrong secret and (before authentication) a broken stored config must look the same to
 * someone who does not hold the tenant's secret, so the middleware answers all three alike.
 */
export type TenantLookup =
  /** `rev`: the revision it was read at; `fromCache`: this isolate's copy, to be checked against the stored revision. */
  | { kind: 'found'; tenant: LoadedTenant; rev?: number; fromCache?: boolean }
  /** Redis did not answer: what this isolate last read of the tenant, if anything. */
  | { kind: 'storage-down'; tenantId: string; cached: LoadedTenant | null; rev?: number }
  | { kind: 'unknown'; tenantId: string }
  | { kind: 'broken'; tenantId: string; problems: string[]; secrets: TenantSecrets | null };

export async function lookupTenantFromPath(
  c: Context<AppContext>,
  options: { fromCache?: boolean } = {},
): Promise<TenantLookup> {
  const tenantId = c.req.param('tenant') ?? '';
  if (!isTenantId(tenantId)) return { kind: 'unknown', tenantId: tenantId.slice(0, 63) };
  const known = options.fromCache ? cachedTenant(tenantId) : null;
  if (known) return { kind: 'found', tenant: known.tenant, rev: known.rev, fromCache: true };
  return loadTenantFresh(c, tenantId);
}

/** The tenant read from Redis now (one round trip), remembered for this isolate. */
export async function loadTenantFresh(c: Context<AppContext>, tenantId: string): Promise<TenantLookup> {
  let loaded;
  try {
    loaded = await loadTenant(c.get('session'), tenantId, await c.get('services').secretKeys());
  } catch (err) {
    // A key that cannot open a tenant's secrets is the operator's misconfiguration: say so, loudly.
    if (err instanceof SecretKeyError) throw err;
    console.warn(`tenant lookup: Redis did not answer (${err instanceof Error ? err.name : 'Error'})`);
    const known = cachedTenant(tenantId);
    return { kind: 'storage-down', tenantId, cached: known?.tenant ?? null, ...(known ? { rev: known.rev } : {}) };
  }
  if (!loaded.found) {
    forgetTenant(tenantId);
    return { kind: 'unknown', tenantId };
  }
  if ('broken' in loaded) return { kind: 'broken', tenantId, problems: loaded.broken, secrets: loaded.secrets };
  const tenant = { config: loaded.config, secrets: loaded.secrets, meta: loaded.meta };
  rememberTenant(tenant, loaded.rev, loaded.storedBytes);
  return { kind: 'found', tenant, rev: loaded.rev };
}

/**
 * Whether `provided` is the tenant's secret (or, within a rotation's overlap window, the previous
 * one): keyed hashes compared in constant time. Without a stored hash (unknown tenant, unreadable
 * secrets) the same work is done and the answer is no.
 */
export async function secretMatches(
  c: Context<AppContext>,
  provided: string,
  stored: HashedSecret | undefined,
): Promise<boolean> {
  const { hashKey } = await c.get('services').secretKeys();
  return verifyHashedSecret(provided, stored, hashKey);
}

/** Logged, never answered: why a request for this tenant was refused before authentication. */
export function logRefusedLookup(lookup: Exclude<TenantLookup, { kind: 'found' }>, route: string): void {
  if (lookup.kind === 'storage-down') console.warn(`${route}: Redis did not answer for tenant "${lookup.tenantId}"`);
  else if (lookup.kind === 'unknown') console.warn(`${route}: unknown tenant "${lookup.tenantId}" (answered 401)`);
  else
    console.warn(
      `${route}: tenant "${lookup.tenantId}" has an invalid stored configuration: ${lookup.problems.join('; ').slice(0, 500)}`,
    );
}

/** Redis is down and the isolate does not know the tenant: nothing can be done with the request now. */
export function storageUnavailable(c: Context): Response {
  c.header('Retry-After', '30');
  return jsonError(c, 503, 'storage is unavailable; the request was not processed, retry later');
}

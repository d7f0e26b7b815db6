import type { Context, MiddlewareHandler } from 'hono';
import { assertSafeId } from '../../../core/storage/keys.js';
import { loadTenant } from '../../tenants/tenant-store.js';
import type { AppContext, LoadedTenant, TenantContext } from '../app-context.js';
import { jsonError } from '../errors.js';

export type TenantLookup = { ok: true; tenant: LoadedTenant } | { ok: false; response: Response };

/**
 * The tenant a `:tenant` path names, in one Redis round trip (config and secrets). An id that
 * cannot be a key is unknown; a stored config that no longer validates is a 503 (the tenant can
 * fix it), its problems logged, not shown.
 */
export async function lookupTenantFromPath(c: Context<AppContext>): Promise<TenantLookup> {
  const tenantId = c.req.param('tenant') ?? '';
  try {
    assertSafeId('tenant id', tenantId);
  } catch {
    return { ok: false, response: jsonError(c, 404, `unknown tenant "${tenantId.slice(0, 60)}"`) };
  }
  const loaded = await loadTenant(c.get('session'), tenantId);
  if (!loaded.found) return { ok: false, response: jsonError(c, 404, `unknown tenant "${tenantId}"`) };
  if ('broken' in loaded) return { ok: false, response: jsonError(c, 503, `tenant "${tenantId}" has an invalid stored configuration`, loaded.broken) };
  return { ok: true, tenant: { config: loaded.config, secrets: loaded.secrets } };
}

/** Loads the path's tenant into `c.var.tenant`; authentication comes after, from what it holds. */
export function loadTenantFromPath(): MiddlewareHandler<TenantContext> {
  return async (c, next) => {
    const found = await lookupTenantFromPath(c as unknown as Context<AppContext>);
    if (!found.ok) return found.response;
    c.set('tenant', found.tenant);
    await next();
  };
}

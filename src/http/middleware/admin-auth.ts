import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext, TenantContext } from '../app-context.js';
import { jsonError } from '../errors.js';
import { logRefusedLookup, lookupTenantFromPath, secretMatches, storageUnavailable } from './tenant.js';

export const WRONG_ADMIN_SECRET = 'wrong admin secret for this tenant';

/**
 * The tenant JSON API's authentication: `Authorization: Bearer <admin secret>`, compared in
 * constant time against the tenant's stored digest. Not the webhook secret: that one is pasted
 * into ManyChat request templates and must not approve destructive actions. A tenant reaches
 * only its own `:tenant` path: the secret is checked against the tenant the path names. An
 * unknown tenant gets the same 401 as a wrong secret; a broken stored config is shown (503) only
 * to a caller who holds the tenant's admin secret.
 */
export function requireAdminSecret(): MiddlewareHandler<TenantContext> {
  return async (c, next) => {
    const provided = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (!provided) return jsonError(c, 401, 'missing Authorization: Bearer <tenant admin secret> header');
    const lookup = await lookupTenantFromPath(c as unknown as Context<AppContext>);
    if (lookup.kind === 'storage-down') return storageUnavailable(c);
    const secrets = lookup.kind === 'found' ? lookup.tenant.secrets : lookup.kind === 'broken' ? lookup.secrets : null;
    const authentic = await secretMatches(c as unknown as Context<AppContext>, provided, secrets?.adminSecret);
    if (lookup.kind !== 'found') {
      logRefusedLookup(lookup, 'tenant API');
      if (lookup.kind === 'broken' && authentic)
        return jsonError(c, 503, `tenant "${lookup.tenantId}" has an invalid stored configuration`, lookup.problems);
      return jsonError(c, 401, WRONG_ADMIN_SECRET);
    }
    // A tenant without an admin secret has its API closed; to a caller that looks like any refusal.
    if (!authentic) return jsonError(c, 401, WRONG_ADMIN_SECRET);
    c.set('tenant', lookup.tenant);
    await next();
  };
}

import type { Context, MiddlewareHandler } from 'hono';
import { secretsEqual } from '../../../core/security/constant-time.js';
import { sha256Hex } from '../../../core/security/digest.js';
import type { AppContext, TenantContext } from '../app-context.js';
import { jsonError } from '../errors.js';
import { lookupTenantFromPath } from './tenant.js';

/**
 * The tenant JSON API's authentication: `Authorization: Bearer <admin secret>`, compared in
 * constant time against the tenant's stored digest. Not the webhook secret: that one is pasted
 * into ManyChat request templates and must not approve destructive actions. A tenant reaches
 * only its own `:tenant` path: the secret is checked against the tenant the path names.
 */
export function requireAdminSecret(): MiddlewareHandler<TenantContext> {
  return async (c, next) => {
    const provided = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (!provided) return jsonError(c, 401, 'missing Authorization: Bearer <tenant admin secret> header');
    const found = await lookupTenantFromPath(c as unknown as Context<AppContext>);
    if (!found.ok) return found.response;
    const tenantId = found.tenant.config.tenantId;
    const expected = found.tenant.secrets.adminSecretSha256;
    if (!expected) return jsonError(c, 403, `tenant "${tenantId}" has no admin secret; its API is closed`);
    if (!(await secretsEqual(await sha256Hex(provided), expected))) return jsonError(c, 401, `wrong admin secret for tenant "${tenantId}"`);
    c.set('tenant', found.tenant);
    await next();
  };
}

import type { MiddlewareHandler } from 'hono';
import { secretsEqual } from '../../core/security/constant-time.js';
import { assertSafeId } from '../../core/storage/keys.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { loadTenant } from '../tenants/tenant-store.js';
import { sha256Hex } from '../../core/security/digest.js';
import type { TenantSecrets } from '../../core/tenant/tenant-secrets.js';
import type { AppContext } from './app-context.js';
import { jsonError } from './errors.js';

export type TenantApiContext = AppContext & { Variables: AppContext['Variables'] & { tenant: { config: TenantConfig; secrets: TenantSecrets } } };

/**
 * Tenant-authenticated JSON API (until the dashboard's session login exists):
 * `Authorization: Bearer <admin secret>`, compared in constant time against the tenant's stored
 * digest. Not the webhook secret: that one is pasted into ManyChat request templates and must not
 * approve destructive actions. A tenant can reach only its own `:tenant` path.
 */
export function tenantAuth(): MiddlewareHandler<TenantApiContext> {
  return async (c, next) => {
    const tenantId = c.req.param('tenant') ?? '';
    try {
      assertSafeId('tenant id', tenantId);
    } catch {
      return jsonError(c, 404, 'unknown tenant');
    }
    const provided = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (!provided) return jsonError(c, 401, 'missing Authorization: Bearer <tenant admin secret> header');
    const loaded = await loadTenant(c.get('services').redis(), tenantId);
    if (!loaded.found) return jsonError(c, 404, `unknown tenant "${tenantId}"`);
    if ('broken' in loaded) return jsonError(c, 503, `tenant "${tenantId}" has an invalid stored configuration`, loaded.broken);
    const expected = loaded.secrets.adminSecretSha256;
    if (!expected) return jsonError(c, 403, `tenant "${tenantId}" has no admin secret; its API is closed`);
    if (!(await secretsEqual(await sha256Hex(provided), expected))) return jsonError(c, 401, `wrong admin secret for tenant "${tenantId}"`);
    c.set('tenant', { config: loaded.config, secrets: loaded.secrets });
    await next();
  };
}

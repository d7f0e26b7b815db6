import { demoTenantConfig } from '../dev/demo-tenant.js';
import { devSecretKeys } from '../dev/stack.js';
import { RedisSession } from '../core/storage/redis-session.js';
import type { TenantConfigInput } from '../core/tenant/tenant-config.js';
import { saveTenant } from '../src/tenants/tenant-store.js';
import { deepMerge } from './case-format.js';

/**
 * The benchmarks' tenant: the demo tenant's config under a fresh id with its own webhook secret,
 * saved through the product's save path, its rate limits raised so a load run is never refused.
 */
export async function saveBenchTenant(
  upstash: { url: string; token: string },
  prefix: string,
): Promise<{ tenantId: string; secret: string; session: RedisSession }> {
  const session = RedisSession.connect(upstash.url, upstash.token);
  const tenantId = `${prefix}-${Date.now().toString(36)}`;
  const secret = `${prefix}-secret-${Math.random().toString(36).slice(2)}`;
  const config = deepMerge<TenantConfigInput>(demoTenantConfig(tenantId), {
    guardrails: { rateLimit: { tenantPerMinute: 1_000_000, contactPerMinute: 1000 } },
  });
  const saved = await saveTenant(
    session,
    { ...config, tenantId },
    { plain: { webhookSecret: secret, manychatApiKey: '1000001:demo-manychat-key' }, keys: await devSecretKeys() },
  );
  if (!saved.ok) throw new Error(`bench tenant is invalid: ${saved.problems.join('; ')}`);
  return { tenantId, secret, session };
}

import { parseJson, type RedisSession } from '../../core/storage/redis-session.js';
import { TENANT_INDEX_KEY, tenantKeys } from '../../core/storage/keys.js';
import { parseTenantConfig, type TenantConfig, type TenantConfigInput } from '../../core/tenant/tenant-config.js';
import { TenantSecretsSchema, type TenantSecrets } from '../../core/tenant/tenant-secrets.js';

export type TenantLoad =
  | { found: false }
  | { found: true; config: TenantConfig; secrets: TenantSecrets }
  | { found: true; broken: string[] };

/** One round trip: the config and the secrets together. */
export async function loadTenant(session: RedisSession, tenantId: string): Promise<TenantLoad> {
  const keys = tenantKeys(tenantId);
  const [rawConfig, rawSecrets] = await session.pipeline((p) => {
    p.get(keys.config);
    p.get(keys.secrets);
  });
  if (rawConfig == null || rawSecrets == null) return { found: false };
  const parsed = parseTenantConfig(parseJson(rawConfig), 'load');
  const secrets = TenantSecretsSchema.safeParse(parseJson(rawSecrets));
  if (!parsed.ok) return { found: true, broken: parsed.problems };
  if (!secrets.success) return { found: true, broken: ['stored secrets do not match their schema'] };
  return { found: true, config: parsed.config, secrets: secrets.data };
}

/** Validates and writes a config (and optionally secrets) atomically. Returns problems, if any. */
export async function saveTenant(
  session: RedisSession,
  input: TenantConfigInput,
  secrets?: TenantSecrets,
): Promise<{ ok: true; config: TenantConfig } | { ok: false; problems: string[] }> {
  const parsed = parseTenantConfig(input);
  if (!parsed.ok) return parsed;
  const keys = tenantKeys(parsed.config.tenantId);
  await session.multi((m) => {
    m.set(keys.config, JSON.stringify(parsed.config));
    if (secrets) m.set(keys.secrets, JSON.stringify(TenantSecretsSchema.parse(secrets)));
    m.sadd(TENANT_INDEX_KEY, parsed.config.tenantId);
  });
  return parsed;
}


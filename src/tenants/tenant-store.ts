import { parseJson, type RedisSession } from '../../core/storage/redis-session.js';
import { TENANT_INDEX_KEY, tenantKeys } from '../../core/storage/keys.js';
import { parseTenantConfig, type TenantConfig, type TenantConfigInput } from '../../core/tenant/tenant-config.js';
import { openTenantSecrets, sealTenantSecrets, StoredSecretsSchema, type PlainSecrets, type SecretKeys, type StoredSecrets, type TenantSecrets } from '../../core/tenant/tenant-secrets.js';
import { TenantMetaSchema, type TenantMeta } from './tenant-meta.js';

export type TenantLoad =
  | { found: false }
  | { found: true; config: TenantConfig; secrets: TenantSecrets; meta: TenantMeta }
  /** The stored config no longer validates; its secrets, when readable, still authenticate the tenant. */
  | { found: true; broken: string[]; secrets: TenantSecrets | null };

/**
 * One round trip: config, secrets and status together. The secrets are opened with the Worker's
 * keys; a key that is missing or wrong throws SecretKeyError (loudly, at use).
 */
export async function loadTenant(session: RedisSession, tenantId: string, keys: SecretKeys): Promise<TenantLoad> {
  const k = tenantKeys(tenantId);
  const [rawConfig, rawSecrets, rawMeta] = await session.pipeline((p) => {
    p.get(k.config);
    p.get(k.secrets);
    p.get(k.meta);
  });
  if (rawConfig == null || rawSecrets == null) return { found: false };
  const parsed = parseTenantConfig(parseJson(rawConfig), 'load');
  const stored = StoredSecretsSchema.safeParse(parseJson(rawSecrets));
  if (!stored.success) return { found: true, broken: ['stored secrets do not match their schema'], secrets: null };
  const secrets = await openTenantSecrets(stored.data, keys);
  if (!parsed.ok) return { found: true, broken: parsed.problems, secrets };
  const meta = TenantMetaSchema.safeParse(parseJson(rawMeta));
  return { found: true, config: parsed.config, secrets, meta: meta.success ? meta.data : { status: 'active' } };
}

/** Secrets to write with the config: plain (sealed here, with the keys) or already stored (sealed). */
export type SecretsToSave = { plain: PlainSecrets; keys: SecretKeys } | { stored: StoredSecrets };

/** Validates and writes a config (and optionally secrets) atomically. Returns problems, if any. */
export async function saveTenant(session: RedisSession, input: TenantConfigInput, secrets?: SecretsToSave): Promise<{ ok: true; config: TenantConfig } | { ok: false; problems: string[] }> {
  const parsed = parseTenantConfig(input);
  if (!parsed.ok) return parsed;
  const k = tenantKeys(parsed.config.tenantId);
  const stored = secrets ? ('stored' in secrets ? StoredSecretsSchema.parse(secrets.stored) : await sealTenantSecrets(secrets.plain, secrets.keys)) : null;
  await session.multi((m) => {
    m.set(k.config, JSON.stringify(parsed.config));
    if (stored) m.set(k.secrets, JSON.stringify(stored));
    m.sadd(TENANT_INDEX_KEY, parsed.config.tenantId);
  });
  return parsed;
}

import { parseJson, type RedisSession } from '../../core/storage/redis-session.js';
import { messengerAppTenantsKey, messengerPageOwnerKey, TENANT_INDEX_KEY } from '../../core/storage/keys.js';
import { tenantRecordKeys } from '../../core/storage/tenant-record.js';
import { parseTenantConfig, type TenantConfig, type TenantConfigInput } from '../../core/tenant/tenant-config.js';
import {
  openTenantSecrets,
  sealTenantSecrets,
  StoredSecretsSchema,
  type PlainSecrets,
  type SecretKeys,
  type StoredSecrets,
  type TenantSecrets,
} from '../../core/tenant/tenant-secrets.js';
import { TenantMetaSchema, type TenantMeta } from './tenant-meta.js';

export type TenantLoad =
  | { found: false }
  | {
      found: true;
      config: TenantConfig;
      secrets: TenantSecrets;
      meta: TenantMeta;
      rev: number;
      /** The stored config and secrets' JSON length (what an isolate's tenant cache budgets by). */
      storedBytes: number;
    }
  /** The stored config no longer validates; its secrets, when readable, still authenticate the tenant. */
  | { found: true; broken: string[]; secrets: TenantSecrets | null };

/**
 * One round trip: config, secrets and status together. The secrets are opened with the Worker's
 * keys; a key that is missing or wrong throws SecretKeyError (loudly, at use).
 */
export async function loadTenant(session: RedisSession, tenantId: string, keys: SecretKeys): Promise<TenantLoad> {
  const k = tenantRecordKeys(tenantId);
  const [rawConfig, rawSecrets, rawMeta, rawRev] = await session.pipeline((p) => {
    p.get(k.config);
    p.get(k.secrets);
    p.get(k.meta);
    p.get(k.rev);
  });
  if (rawConfig == null || rawSecrets == null) return { found: false };
  const parsed = parseTenantConfig(parseJson(rawConfig), 'load');
  const stored = StoredSecretsSchema.safeParse(parseJson(rawSecrets));
  if (!stored.success) return { found: true, broken: ['stored secrets do not match their schema'], secrets: null };
  const secrets = await openTenantSecrets(stored.data, keys);
  if (!parsed.ok) return { found: true, broken: parsed.problems, secrets };
  const meta = TenantMetaSchema.safeParse(parseJson(rawMeta));
  return {
    found: true,
    config: parsed.config,
    secrets,
    meta: meta.success ? meta.data : { status: 'active' },
    rev: Number(rawRev ?? 0) || 0,
    storedBytes: String(rawConfig).length + String(rawSecrets).length,
  };
}

/** Secrets to write with the config: plain (sealed here, with the keys) or already stored (sealed). */
export type SecretsToSave = { plain: PlainSecrets; keys: SecretKeys } | { stored: StoredSecrets };

/** Validates and writes a config (and optionally secrets) atomically. Returns problems, if any. */
export async function saveTenant(
  session: RedisSession,
  input: TenantConfigInput,
  secrets?: SecretsToSave,
): Promise<{ ok: true; config: TenantConfig } | { ok: false; problems: string[] }> {
  const parsed = parseTenantConfig(input);
  if (!parsed.ok) return parsed;
  const k = tenantRecordKeys(parsed.config.tenantId);
  const pages = await pageOwnership(session, parsed.config);
  if (pages.problems.length) return { ok: false, problems: pages.problems };
  const stored = secrets
    ? 'stored' in secrets
      ? StoredSecretsSchema.parse(secrets.stored)
      : await sealTenantSecrets(secrets.plain, secrets.keys)
    : null;
  await session.multi((m) => {
    m.set(k.config, JSON.stringify(parsed.config));
    if (stored) m.set(k.secrets, JSON.stringify(stored));
    m.sadd(TENANT_INDEX_KEY, parsed.config.tenantId);
    for (const pageId of pages.claim) m.set(messengerPageOwnerKey(pageId), parsed.config.tenantId);
    for (const pageId of pages.release) m.del(messengerPageOwnerKey(pageId));
    if (parsed.config.messenger.appId)
      m.sadd(messengerAppTenantsKey(parsed.config.messenger.appId), parsed.config.tenantId);
    if (pages.previousAppId && pages.previousAppId !== parsed.config.messenger.appId)
      m.srem(messengerAppTenantsKey(pages.previousAppId), parsed.config.tenantId);
    m.incr(k.rev);
  });
  return parsed;
}

/**
 * The Messenger pages a save claims and releases in the page index, or why it may not: a page
 * another existing tenant lists belongs to that tenant (the app-wide callback routes each page to
 * one tenant). One round trip before the write.
 */
export async function pageOwnership(
  session: RedisSession,
  config: TenantConfig,
): Promise<{ problems: string[]; claim: string[]; release: string[]; previousAppId?: string }> {
  const wanted = config.messenger.pages.map((p) => p.id);
  const [rawPrevious, ...owners] = await session.pipeline((p) => {
    p.get(tenantRecordKeys(config.tenantId).config);
    for (const pageId of wanted) p.get(messengerPageOwnerKey(pageId));
  });
  const previous = parseTenantConfig(parseJson(rawPrevious), 'load');
  const before = previous.ok ? previous.config.messenger.pages.map((p) => p.id) : [];
  const foreign = wanted.flatMap((pageId, i) =>
    typeof owners[i] === 'string' && owners[i] !== config.tenantId ? [{ pageId, owner: owners[i] as string }] : [],
  );
  const alive = foreign.length
    ? await session.pipeline((p) => foreign.forEach((f) => p.exists(tenantRecordKeys(f.owner).config)))
    : [];
  const problems = foreign
    .filter((_, i) => Number(alive[i]) > 0)
    .map((f) => `messenger page "${f.pageId}" belongs to tenant "${f.owner}"`);
  const previousAppId = previous.ok ? previous.config.messenger.appId : undefined;
  return {
    problems,
    claim: wanted,
    release: before.filter((id) => !wanted.includes(id)),
    ...(previousAppId ? { previousAppId } : {}),
  };
}

import { ConditionalWrites } from '../../core/storage/conditional-writes.js';
import { TENANT_INDEX_KEY } from '../../core/storage/keys.js';
import { tenantRecordKeys } from '../../core/storage/tenant-record.js';
import { parseJson, type RedisSession } from '../../core/storage/redis-session.js';
import { keyedHash } from '../../core/security/keyed-hash.js';
import { randomBase64Url } from '../../core/security/random-base64url.js';
import { parseTenantConfig, type TenantConfigInput } from '../../core/tenant/tenant-config.js';
import {
  resealTenantSecrets,
  sealTenantSecrets,
  StoredSecretsSchema,
  type PlainSecrets,
  type SecretKeys,
  type StoredSecrets,
} from '../../core/tenant/tenant-secrets.js';
import { TenantMetaSchema, type TenantMeta } from './tenant-meta.js';

/**
 * What an operator does to tenants: create (secrets generated, shown once, stored only as what
 * verification needs), rotate a secret with an overlap window, suspend and resume, delete every
 * key, re-encrypt everything under the current key. Each change is one atomic write.
 */

/**
 * A new secret: 256 random bits, base64url (43 characters), never starting with "-": the operator
 * pastes it after `--admin-secret`, where a leading dash reads as an option (1 draw in 64 did).
 */
export function newSecret(): string {
  return randomBase64Url(32);
}

/** A tenant's starting config when the operator gives none: valid, with no tools yet. */
export function starterConfig(tenantId: string): TenantConfigInput {
  return {
    version: 1,
    tenantId,
    displayName: tenantId,
    persona: 'You are the friendly assistant of this business. Answer briefly and warmly.',
    fallbackReply: 'Sorry, I could not help with that just now. A teammate will read your message.',
    handoff: { reply: 'Thanks! A teammate will pick this up shortly.' },
  };
}

export type CreateResult =
  | { ok: true; tenantId: string; webhookSecret: string; adminSecret: string }
  | { ok: false; status: 400 | 409; error: string; problems?: string[] };

export async function createTenant(
  session: RedisSession,
  keys: SecretKeys,
  input: {
    tenantId: string;
    config?: Record<string, unknown>;
    secrets: Omit<PlainSecrets, 'webhookSecret' | 'adminSecret'>;
  },
  now = new Date(),
): Promise<CreateResult> {
  const parsed = parseTenantConfig({ ...(input.config ?? starterConfig(input.tenantId)), tenantId: input.tenantId });
  if (!parsed.ok) return { ok: false, status: 400, error: 'invalid tenant config', problems: parsed.problems };
  const webhookSecret = newSecret();
  const adminSecret = newSecret();
  const stored = await sealTenantSecrets({ ...input.secrets, webhookSecret, adminSecret }, keys);
  const k = tenantRecordKeys(input.tenantId);
  // Written only if no config exists: two creates of one id make one tenant.
  const w = new ConditionalWrites(k.config);
  w.call('SET', k.config, JSON.stringify(parsed.config));
  w.call('SET', k.secrets, JSON.stringify(stored));
  w.call('SET', k.meta, JSON.stringify({ status: 'active', createdAt: now.toISOString() } satisfies TenantMeta));
  w.call('SADD', TENANT_INDEX_KEY, input.tenantId);
  w.call('INCR', k.rev);
  const written = await session.one((r) => r.eval(w.script, w.keys, w.argv));
  if (Number(written) !== 1) return { ok: false, status: 409, error: `tenant "${input.tenantId}" already exists` };
  return { ok: true, tenantId: input.tenantId, webhookSecret, adminSecret };
}

/** A change to a tenant's secrets or status, with its revision bumped in the same MULTI (isolates re-read it). */
async function bumpAfter(
  session: RedisSession,
  tenantId: string,
  write: (m: Parameters<Parameters<RedisSession['multi']>[0]>[0]) => void,
): Promise<void> {
  await session.multi((m) => {
    write(m);
    m.incr(tenantRecordKeys(tenantId).rev);
  });
}

async function readStored(
  session: RedisSession,
  tenantId: string,
): Promise<{ stored: StoredSecrets; meta: TenantMeta } | null> {
  const k = tenantRecordKeys(tenantId);
  const [rawSecrets, rawMeta] = await session.pipeline((p) => {
    p.get(k.secrets);
    p.get(k.meta);
  });
  const stored = StoredSecretsSchema.safeParse(parseJson(rawSecrets));
  if (!stored.success) return null;
  const meta = TenantMetaSchema.safeParse(parseJson(rawMeta));
  return { stored: stored.data, meta: meta.success ? meta.data : { status: 'active' } };
}

/**
 * A new webhook or admin secret; the old one keeps working for `overlapSeconds` (so ManyChat
 * templates can be updated without dropping messages), then stops. Shown once.
 */
export async function rotateSecret(
  session: RedisSession,
  keys: SecretKeys,
  tenantId: string,
  which: 'webhook' | 'admin',
  overlapSeconds: number,
  now = new Date(),
): Promise<{ ok: true; secret: string; previousValidUntil: string } | { ok: false }> {
  const current = await readStored(session, tenantId);
  if (!current) return { ok: false };
  const field = which === 'webhook' ? 'webhookSecret' : 'adminSecret';
  const secret = newSecret();
  const previousValidUntil = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
  const old = current.stored[field];
  const next: StoredSecrets = {
    ...current.stored,
    [field]: {
      hmac: await keyedHash(secret, keys.hashKey),
      ...(old ? { previous: { hmac: old.hmac, validUntil: previousValidUntil } } : {}),
    },
  };
  await bumpAfter(session, tenantId, (m) =>
    m.set(tenantRecordKeys(tenantId).secrets, JSON.stringify(next), { xx: true }),
  );
  return { ok: true, secret, previousValidUntil };
}

export async function setTenantStatus(
  session: RedisSession,
  tenantId: string,
  status: TenantMeta['status'],
  now = new Date(),
): Promise<boolean> {
  const current = await readStored(session, tenantId);
  if (!current) return false;
  const meta: TenantMeta = {
    ...current.meta,
    status,
    ...(status === 'suspended' ? { suspendedAt: now.toISOString() } : {}),
  };
  if (status === 'active') delete meta.suspendedAt;
  await bumpAfter(session, tenantId, (m) => m.set(tenantRecordKeys(tenantId).meta, JSON.stringify(meta)));
  return true;
}

/** Every key under the tenant's prefix, in batches; then proof that none is left. */
export async function deleteTenant(
  session: RedisSession,
  tenantId: string,
): Promise<{ deleted: number; remaining: number }> {
  const prefix = `t:${tenantId}:`;
  tenantRecordKeys(tenantId); // validates the id before any key is touched
  await session.one((r) => r.srem(TENANT_INDEX_KEY, tenantId));
  let deleted = 0;
  for (let pass = 0; pass < 3; pass++) {
    const keys = await scanPrefix(session, prefix);
    if (!keys.length) break;
    for (let i = 0; i < keys.length; i += 500)
      deleted += Number(await session.one((r) => r.del(...keys.slice(i, i + 500))));
  }
  return { deleted, remaining: (await scanPrefix(session, prefix)).length };
}

export async function scanPrefix(session: RedisSession, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = (await session.one((r) =>
      r.scan(cursor, { match: `${escapeGlob(prefix)}*`, count: 500 }),
    )) as [string | number, string[]];
    found.push(...keys);
    cursor = String(next);
  } while (cursor !== '0');
  return found;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Seals every tenant's secrets again under the ring's current key (after a key rotation). */
export async function reencryptAll(
  session: RedisSession,
  keys: SecretKeys,
  only?: readonly string[],
): Promise<{ tenants: number; resealed: number }> {
  const ids = only
    ? [...only]
    : (await session.one((r) => r.smembers(TENANT_INDEX_KEY))).filter((t): t is string => typeof t === 'string');
  let resealed = 0;
  for (const tenantId of ids) {
    let current;
    try {
      current = await readStored(session, tenantId);
    } catch {
      continue;
    }
    if (!current) continue;
    const next = await resealTenantSecrets(current.stored, keys);
    if (JSON.stringify(next) === JSON.stringify(current.stored)) continue;
    await bumpAfter(session, tenantId, (m) =>
      m.set(tenantRecordKeys(tenantId).secrets, JSON.stringify(next), { xx: true }),
    );
    resealed++;
  }
  return { tenants: ids.length, resealed };
}

/** What the operator sees of a tenant: never a secret, only which keys seal them and any open rotation window. */
export async function describeTenant(session: RedisSession, tenantId: string): Promise<Record<string, unknown> | null> {
  const k = tenantRecordKeys(tenantId);
  const [rawConfig] = await session.pipeline((p) => p.get(k.config));
  const current = await readStored(session, tenantId);
  if (!current) return null;
  const config = parseJson(rawConfig) as { displayName?: string } | null;
  const s = current.stored;
  return {
    tenantId,
    displayName: config?.displayName ?? null,
    ...current.meta,
    secrets: {
      webhookSecret: { previousValidUntil: s.webhookSecret.previous?.validUntil ?? null },
      adminSecret: s.adminSecret ? { previousValidUntil: s.adminSecret.previous?.validUntil ?? null } : null,
      sealedWith: [
        ...new Set(
          [
            s.manychatApiKey,
            s.messengerAppSecret,
            s.messengerPageAccessToken,
            s.messengerVerifyToken,
            s.notificationUrl,
            ...Object.values(s.messengerPageTokens ?? {}),
          ].flatMap((x) => (x ? [x.kid] : [])),
        ),
      ],
      messenger: Boolean(s.messengerAppSecret),
    },
  };
}

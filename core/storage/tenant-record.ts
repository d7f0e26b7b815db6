import { StoredSecretsSchema, type StoredSecrets } from '../tenant/tenant-secrets.js';
import { tenantKeys } from './keys.js';
import { parseJson, type RedisSession } from './redis-session.js';

/**
 * The tenant record: the owner of a tenant's config, sealed secrets, status (`meta`) and revision
 * (`rev`, bumped by every change to the other three). Here, in core/, because the claim script
 * (core/storage/claims.ts) reads the revision beside the claim. The tenant store
 * (src/tenants/tenant-store.ts) loads and parses the whole record; the scripts that write several
 * of its keys at once (a save at a revision, a create, a change with its bump) take them from
 * `tenantRecordKeys`; a single read goes through `readTenantRev` or `readStoredSecrets`.
 */

export interface TenantRecordKeys {
  config: string;
  secrets: string;
  meta: string;
  rev: string;
}

/** The record's keys, for a script that reads or writes several of them (or another structure beside them) at once. */
export function tenantRecordKeys(tenantId: string): TenantRecordKeys {
  const k = tenantKeys(tenantId);
  return { config: k.config, secrets: k.secrets, meta: k.meta, rev: k.rev };
}

/** The tenant's revision now (0 when it has none): one round trip. */
export async function readTenantRev(session: RedisSession, tenantId: string): Promise<number> {
  return Number(await session.one((r) => r.get(tenantRecordKeys(tenantId).rev))) || 0;
}

/** The tenant's sealed secrets as stored, or null when there are none (or they do not match their schema): one round trip. */
export async function readStoredSecrets(session: RedisSession, tenantId: string): Promise<StoredSecrets | null> {
  const raw = await session.one((r) => r.get(tenantRecordKeys(tenantId).secrets));
  const stored = StoredSecretsSchema.safeParse(parseJson(raw));
  return stored.success ? stored.data : null;
}

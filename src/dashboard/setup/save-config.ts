import { TENANT_INDEX_KEY } from '../../../core/storage/keys.js';
import { readStoredSecrets, tenantRecordKeys } from '../../../core/storage/tenant-record.js';
import type { RedisSession } from '../../../core/storage/redis-session.js';
import { parseTenantConfig, type TenantConfig } from '../../../core/tenant/tenant-config.js';
import { sealSecret } from '../../../core/security/secret-box.js';
import type { SecretKeys } from '../../../core/tenant/tenant-secrets.js';

/**
 * Saves only if nothing changed the tenant since the editor read it: the tenant's revision (bumped
 * by every config, secret or status change) must still be the one the form was rendered at. The
 * check and the write are one script, so two racing saves cannot both land. The config is
 * validated whole by the turn's schema first; an invalid config never reaches Redis.
 */
const SAVE_IF_REVISION = `
local rev = redis.call('GET', KEYS[2]) or '0'
if rev ~= ARGV[1] then return {0, rev} end
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2]) end
if ARGV[3] ~= '' then redis.call('SET', KEYS[3], ARGV[3]) end
redis.call('SADD', KEYS[4], ARGV[4])
return {1, tostring(redis.call('INCR', KEYS[2]))}
`;

export type SaveResult =
  | { ok: true; config: TenantConfig; rev: number }
  | { ok: false; kind: 'invalid'; problems: string[] }
  | { ok: false; kind: 'conflict'; currentRev: number };

async function runSave(
  redis: RedisSession,
  tenantId: string,
  expectedRev: number,
  configJson: string,
  secretsJson: string,
): Promise<{ ok: boolean; rev: number }> {
  const k = tenantRecordKeys(tenantId);
  const [ok, rev] = (await redis.one((r) =>
    r.eval(
      SAVE_IF_REVISION,
      [k.config, k.rev, k.secrets, TENANT_INDEX_KEY],
      [String(expectedRev), configJson, secretsJson, tenantId],
    ),
  )) as [number, string];
  return { ok: Number(ok) === 1, rev: Number(rev) || 0 };
}

export async function saveConfigAtRevision(
  redis: RedisSession,
  tenantId: string,
  candidate: unknown,
  expectedRev: number,
): Promise<SaveResult> {
  // The session's tenant, whatever the candidate says.
  const parsed = parseTenantConfig(candidate && typeof candidate === 'object' ? { ...candidate, tenantId } : candidate);
  if (!parsed.ok) return { ok: false, kind: 'invalid', problems: parsed.problems };
  const saved = await runSave(redis, tenantId, expectedRev, JSON.stringify(parsed.config), '');
  return saved.ok
    ? { ok: true, config: parsed.config, rev: saved.rev }
    : { ok: false, kind: 'conflict', currentRev: saved.rev };
}

export const WRITE_ONLY_SECRETS = [
  'manychatApiKey',
  'messengerAppSecret',
  'messengerPageAccessToken',
  'messengerVerifyToken',
  'notificationUrl',
] as const;
export type WriteOnlySecret = (typeof WRITE_ONLY_SECRETS)[number];

/** Replaces the given secrets (sealed with the Worker's keys), at the revision the form was read at. Never reads a secret back out. */
export async function saveSecretsAtRevision(
  redis: RedisSession,
  tenantId: string,
  keys: SecretKeys,
  replace: Partial<Record<WriteOnlySecret, string>>,
  expectedRev: number,
  /** Page id → token: each replaces (or adds) that page's token; the other pages' stay. */
  pageTokens?: Readonly<Record<string, string>>,
): Promise<
  | { ok: true; changed: (WriteOnlySecret | `messengerPageTokens.${string}`)[] }
  | { ok: false; kind: 'conflict' | 'missing' }
> {
  const stored = await readStoredSecrets(redis, tenantId);
  if (!stored) return { ok: false, kind: 'missing' };
  const next = { ...stored };
  const changed: (WriteOnlySecret | `messengerPageTokens.${string}`)[] = [];
  for (const name of WRITE_ONLY_SECRETS) {
    const value = replace[name];
    if (value) {
      next[name] = await sealSecret(value, keys.ring);
      changed.push(name);
    }
  }
  for (const [pageId, token] of Object.entries(pageTokens ?? {})) {
    next.messengerPageTokens = { ...next.messengerPageTokens, [pageId]: await sealSecret(token, keys.ring) };
    changed.push(`messengerPageTokens.${pageId}`);
  }
  if (!changed.length) return { ok: true, changed };
  const saved = await runSave(redis, tenantId, expectedRev, '', JSON.stringify(next));
  return saved.ok ? { ok: true, changed } : { ok: false, kind: 'conflict' };
}

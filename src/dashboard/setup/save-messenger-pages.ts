import { messengerPageOwnerKey } from '../../../core/storage/keys.js';
import { readStoredSecrets, tenantRecordKeys } from '../../../core/storage/tenant-record.js';
import type { RedisSession } from '../../../core/storage/redis-session.js';
import { sealSecret } from '../../../core/security/secret-box.js';
import { parseTenantConfig, type TenantConfig } from '../../../core/tenant/tenant-config.js';
import type { SecretKeys, StoredSecrets } from '../../../core/tenant/tenant-secrets.js';
import { pageOwnership } from '../../tenants/tenant-store.js';

/**
 * The tenant's Messenger pages as the dashboard edits them: the list (`messenger.pages`, ids and
 * names) and each page's sealed token (`messengerPageTokens[id]`, write-only: a token given
 * replaces that page's, an empty one keeps it, a page removed loses its token) saved together
 * with the page index the app-wide callback routes by (a page claimed, a page released), in one
 * script at the revision the form was read at. The config is validated whole first; a page
 * another tenant lists is refused with its owner named.
 */
const SAVE_PAGES = `
local rev = redis.call('GET', KEYS[2]) or '0'
if rev ~= ARGV[1] then return {0, rev} end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[3], ARGV[3])
local claims = tonumber(ARGV[5])
for i = 1, claims do redis.call('SET', KEYS[3 + i], ARGV[4]) end
for i = 4 + claims, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[4] then redis.call('DEL', KEYS[i]) end
end
return {1, tostring(redis.call('INCR', KEYS[2]))}
`;

export type PagesSaveResult =
  | { ok: true; config: TenantConfig; rev: number; tokensReplaced: string[]; tokensRemoved: string[] }
  | { ok: false; kind: 'invalid'; problems: string[] }
  | { ok: false; kind: 'conflict' | 'missing' };

export async function saveMessengerPagesAtRevision(
  redis: RedisSession,
  tenantId: string,
  keys: SecretKeys,
  current: TenantConfig,
  pages: readonly { id: string; name?: string }[],
  tokens: Readonly<Record<string, string>>,
  expectedRev: number,
): Promise<PagesSaveResult> {
  const parsed = parseTenantConfig({ ...current, tenantId, messenger: { ...current.messenger, pages } });
  if (!parsed.ok) return { ok: false, kind: 'invalid', problems: parsed.problems };
  const ownership = await pageOwnership(redis, parsed.config);
  if (ownership.problems.length) return { ok: false, kind: 'invalid', problems: ownership.problems };
  const k = tenantRecordKeys(tenantId);
  const stored = await readStoredSecrets(redis, tenantId);
  if (!stored) return { ok: false, kind: 'missing' };
  const kept = new Set(parsed.config.messenger.pages.map((p) => p.id));
  const sealed: NonNullable<StoredSecrets['messengerPageTokens']> = {};
  const tokensRemoved: string[] = [];
  for (const [id, value] of Object.entries(stored.messengerPageTokens ?? {})) {
    if (kept.has(id)) sealed[id] = value;
    else tokensRemoved.push(id);
  }
  const tokensReplaced: string[] = [];
  for (const [id, token] of Object.entries(tokens)) {
    if (!kept.has(id)) continue;
    sealed[id] = await sealSecret(token, keys.ring);
    tokensReplaced.push(id);
  }
  const { messengerPageTokens: _old, ...rest } = stored;
  const nextSecrets = { ...rest, ...(Object.keys(sealed).length ? { messengerPageTokens: sealed } : {}) };
  const [ok, rev] = (await redis.one((r) =>
    r.eval(
      SAVE_PAGES,
      [
        k.config,
        k.rev,
        k.secrets,
        ...ownership.claim.map(messengerPageOwnerKey),
        ...ownership.release.map(messengerPageOwnerKey),
      ],
      [
        String(expectedRev),
        JSON.stringify(parsed.config),
        JSON.stringify(nextSecrets),
        tenantId,
        String(ownership.claim.length),
      ],
    ),
  )) as [number, string];
  if (Number(ok) !== 1) return { ok: false, kind: 'conflict' };
  return { ok: true, config: parsed.config, rev: Number(rev) || 0, tokensReplaced, tokensRemoved };
}

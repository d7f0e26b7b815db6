import { z } from 'zod';
import { keyedHash, type HashedSecret } from '../security/keyed-hash.js';
import { openSecret, parseKeyRing, SealedSecretSchema, sealSecret, type KeyRing } from '../security/secret-box.js';

/**
 * Per-tenant secrets, stored apart from the config so the config can be shown and edited without
 * exposing them. At rest nothing is plain: the webhook and admin secrets are keyed hashes (with
 * the previous one kept through a rotation's overlap window), and the secrets the Worker must use
 * (the ManyChat API key, Messenger's app secret, page token and verify token) are AES-GCM
 * ciphertexts naming their key. Opened once per request into `TenantSecrets`.
 */
const HashedSecretSchema = z.object({
  hmac: z.string().regex(/^[0-9a-f]{64}$/),
  previous: z.object({ hmac: z.string().regex(/^[0-9a-f]{64}$/), validUntil: z.string() }).optional(),
});

export const StoredSecretsSchema = z.object({
  version: z.literal(2),
  webhookSecret: HashedSecretSchema,
  /**
   * The tenant's admin credential for its JSON API (approvals, config, dead letters, handoff
   * release), apart from the webhook secret, which sits in every ManyChat request template.
   * Absent: the tenant API is closed for this tenant.
   */
  adminSecret: HashedSecretSchema.optional(),
  manychatApiKey: SealedSecretSchema,
  messengerAppSecret: SealedSecretSchema.optional(),
  messengerPageAccessToken: SealedSecretSchema.optional(),
  messengerVerifyToken: SealedSecretSchema.optional(),
  /** Where notifications go when the URL is itself a credential (a Slack incoming webhook): sealed, never in the config. */
  notificationUrl: SealedSecretSchema.optional(),
  /**
   * One page access token per page id, for a tenant with several pages (config `messenger.pages`):
   * a reply goes out with the token of the page the contact wrote to. `messengerPageAccessToken`
   * stays the token of the tenant's first page (the one-page set-up).
   */
  messengerPageTokens: z.record(z.string().regex(/^\d{1,30}$/), SealedSecretSchema).optional(),
});
export type StoredSecrets = z.infer<typeof StoredSecretsSchema>;

/** The secrets as a request uses them: hashes to verify against, the others opened. */
export interface TenantSecrets {
  webhookSecret: HashedSecret;
  adminSecret?: HashedSecret;
  manychatApiKey: string;
  messengerAppSecret?: string;
  messengerPageAccessToken?: string;
  messengerVerifyToken?: string;
  notificationUrl?: string;
  /** Page id → that page's access token (opened). */
  messengerPageTokens?: Record<string, string>;
}

/** What an operator hands in: plain, write-only. */
export interface PlainSecrets {
  webhookSecret: string;
  adminSecret?: string;
  manychatApiKey: string;
  messengerAppSecret?: string;
  messengerPageAccessToken?: string;
  messengerVerifyToken?: string;
  notificationUrl?: string;
  messengerPageTokens?: Record<string, string>;
}

/** The keys secrets are stored under: the encryption key ring and the hash key. */
export interface SecretKeys {
  ring: KeyRing;
  hashKey: string;
}

const SEALED = [
  'manychatApiKey',
  'messengerAppSecret',
  'messengerPageAccessToken',
  'messengerVerifyToken',
  'notificationUrl',
] as const;

export async function sealTenantSecrets(plain: PlainSecrets, keys: SecretKeys): Promise<StoredSecrets> {
  const stored: StoredSecrets = {
    version: 2,
    webhookSecret: { hmac: await keyedHash(plain.webhookSecret, keys.hashKey) },
    ...(plain.adminSecret ? { adminSecret: { hmac: await keyedHash(plain.adminSecret, keys.hashKey) } } : {}),
    manychatApiKey: await sealSecret(plain.manychatApiKey, keys.ring),
  };
  for (const field of SEALED.slice(1)) {
    const value = plain[field];
    if (value) stored[field] = await sealSecret(value, keys.ring);
  }
  if (plain.messengerPageTokens && Object.keys(plain.messengerPageTokens).length)
    stored.messengerPageTokens = await mapValues(plain.messengerPageTokens, (token) => sealSecret(token, keys.ring));
  return stored;
}

/** Opens what the Worker must use; a key that is missing or wrong throws SecretKeyError. */
export async function openTenantSecrets(stored: StoredSecrets, keys: SecretKeys): Promise<TenantSecrets> {
  const opened: TenantSecrets = {
    webhookSecret: stored.webhookSecret,
    manychatApiKey: await openSecret(stored.manychatApiKey, keys.ring),
  };
  if (stored.adminSecret) opened.adminSecret = stored.adminSecret;
  for (const field of SEALED.slice(1)) {
    const sealed = stored[field];
    if (sealed) opened[field] = await openSecret(sealed, keys.ring);
  }
  if (stored.messengerPageTokens)
    opened.messengerPageTokens = await mapValues(stored.messengerPageTokens, (sealed) => openSecret(sealed, keys.ring));
  return opened;
}

/** The same secrets sealed again under the ring's current key (key rotation). */
export async function resealTenantSecrets(stored: StoredSecrets, keys: SecretKeys): Promise<StoredSecrets> {
  const next: StoredSecrets = { ...stored };
  for (const field of SEALED) {
    const sealed = stored[field];
    if (sealed && sealed.kid !== keys.ring.currentKid)
      next[field] = await sealSecret(await openSecret(sealed, keys.ring), keys.ring);
  }
  if (stored.messengerPageTokens)
    next.messengerPageTokens = await mapValues(stored.messengerPageTokens, async (sealed) =>
      sealed.kid === keys.ring.currentKid ? sealed : sealSecret(await openSecret(sealed, keys.ring), keys.ring),
    );
  return next;
}

async function mapValues<A, B>(record: Record<string, A>, f: (value: A) => Promise<B>): Promise<Record<string, B>> {
  return Object.fromEntries(await Promise.all(Object.entries(record).map(async ([k, v]) => [k, await f(v)] as const)));
}

/** The keys from their two Worker secrets (`SECRETS_ENCRYPTION_KEYS`, `SECRETS_HASH_KEY`). */
export async function secretKeysFrom(encryptionKeys: string, hashKey: string): Promise<SecretKeys> {
  return { ring: await parseKeyRing(encryptionKeys), hashKey };
}

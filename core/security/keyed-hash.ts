import { secretsEqual } from './constant-time.js';
import { hmacSha256Hex } from './digest.js';

/**
 * Webhook and admin secrets are stored only as keyed hashes — HMAC-SHA-256 under a server-side key
 * (the `SECRETS_HASH_KEY` Worker secret) — so a leaked Redis dump is no dictionary for them.
 */
export function keyedHash(secret: string, hashKey: string): Promise<string> {
  return hmacSha256Hex(`tenant-secret:${hashKey}`, secret);
}

/** A stored secret hash, with the previous one still accepted until its overlap window ends (rotation). */
export interface HashedSecret {
  hmac: string;
  previous?: { hmac: string; validUntil: string };
}

/**
 * Whether `provided` is the secret (or, within its window, the previous one), in constant time.
 * Without a stored hash the same work is done and the answer is no.
 */
export async function verifyHashedSecret(
  provided: string,
  stored: HashedSecret | undefined | null,
  hashKey: string,
  now = new Date(),
): Promise<boolean> {
  return hmacMatchesStored(await keyedHash(provided, hashKey), stored, now);
}

/**
 * Whether a secret's keyed hash (taken when the request arrived, so the secret itself is never
 * kept) is the stored one, or the previous one within its window at `at`, in constant time.
 */
export async function hmacMatchesStored(
  hmac: string,
  stored: HashedSecret | undefined | null,
  at: Date,
): Promise<boolean> {
  const current = await secretsEqual(hmac, stored?.hmac ?? '0'.repeat(64));
  const previousLive = stored?.previous && Date.parse(stored.previous.validUntil) > at.getTime();
  const previous = await secretsEqual(hmac, previousLive ? stored!.previous!.hmac : '1'.repeat(64));
  return Boolean(stored) && (current || Boolean(previousLive && previous));
}

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
  const hmac = await keyedHash(provided, hashKey);
  const current = await secretsEqual(hmac, stored?.hmac ?? '0'.repeat(64));
  const previousLive = stored?.previous && Date.parse(stored.previous.validUntil) > now.getTime();
  const previous = await secretsEqual(hmac, previousLive ? stored!.previous!.hmac : '1'.repeat(64));
  return Boolean(stored) && (current || Boolean(previousLive && previous));
}

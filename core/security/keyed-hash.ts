import { secretsEqual, timingSafeEqual } from './constant-time.js';
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
  const current = await hashesEqual(hmac, stored?.hmac ?? '0'.repeat(64));
  const previousLive = stored?.previous && Date.parse(stored.previous.validUntil) > at.getTime();
  const previous = await hashesEqual(hmac, previousLive ? stored!.previous!.hmac : '1'.repeat(64));
  return Boolean(stored) && (current || Boolean(previousLive && previous));
}

const HMAC_HEX_LENGTH = 64;
const utf8 = new TextEncoder();

/**
 * Two keyed hashes, in constant time. Every HMAC-SHA-256 is 64 hex digits, so their length says
 * nothing and they are compared byte for byte; `secretsEqual` would hash both first to hide a
 * length there is nothing to hide in (four SHA-256 digests a webhook, for nothing). Anything not
 * 64 characters long (a stored value that is not a hash) is still compared through it.
 */
async function hashesEqual(a: string, b: string): Promise<boolean> {
  if (a.length === HMAC_HEX_LENGTH && b.length === HMAC_HEX_LENGTH)
    return timingSafeEqual(utf8.encode(a), utf8.encode(b));
  return secretsEqual(a, b);
}

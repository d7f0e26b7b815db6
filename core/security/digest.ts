/** Hex digests through Web Crypto (workerd and Node alike). */

/** The two hex digits of every byte, built once: a table look-up a byte instead of a format and a pad. */
const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

export function hex(bytes: ArrayBuffer): string {
  const view = new Uint8Array(bytes);
  let out = '';
  for (let i = 0; i < view.length; i++) out += HEX_BYTE[view[i]!]!;
  return out;
}

export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** SHA-1 only where Redis compares it (`redis.sha1hex` in a Lua script), never for secrets. */
export async function sha1Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text)));
}

/**
 * Imported HMAC-SHA-256 keys, per isolate. The keys are the Worker's own (the hash key of stored
 * secrets, a purpose's signing key): few and fixed for the isolate's life, so importing one on
 * every request (each webhook's secret check did) was the same work each time. Bounded like the
 * signing-key derivations (core/security/signing-keys.ts) in case a caller ever passes many.
 */
const hmacKeys = new Map<string, Promise<CryptoKey>>();
const HMAC_KEY_CACHE_LIMIT = 32;

/** The HMAC-SHA-256 signing key for these key bytes, imported once per isolate. */
export function hmacKey(keyText: string): Promise<CryptoKey> {
  let key = hmacKeys.get(keyText);
  if (!key) {
    if (hmacKeys.size >= HMAC_KEY_CACHE_LIMIT) hmacKeys.clear();
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(keyText), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    // A failed import is not remembered: the next call tries again.
    key.catch(() => hmacKeys.delete(keyText));
    hmacKeys.set(keyText, key);
  }
  return key;
}

/** HMAC-SHA-256 of `text` under `key`, hex. */
export async function hmacSha256Hex(key: string, text: string): Promise<string> {
  return hex(await crypto.subtle.sign('HMAC', await hmacKey(key), new TextEncoder().encode(text)));
}

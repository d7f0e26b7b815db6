import { z } from 'zod';

/**
 * Tenant secrets at rest (the ManyChat API key, Messenger secrets): AES-256-GCM through Web
 * Crypto, each ciphertext naming the key that sealed it, so the key can be rotated — a new key is
 * put first in the ring, old ciphertexts still open with the old one until a re-encryption pass
 * seals them again with the new. A ciphertext whose key is not in the ring, or that does not
 * authenticate, fails loudly (SecretKeyError): a tenant's secret is never silently empty.
 *
 * The ring comes from one Worker secret: `SECRETS_ENCRYPTION_KEYS="k2:<base64 32 bytes>,k1:<…>"`,
 * the first entry the current key.
 */
export const SealedSecretSchema = z.object({
  kid: z.string().min(1).max(32),
  iv: z.string().min(1),
  ct: z.string().min(1),
});
export type SealedSecret = z.infer<typeof SealedSecretSchema>;

export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

export interface KeyRing {
  currentKid: string;
  keys: Map<string, CryptoKey>;
}

const b64 = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
function unb64(text: string): Uint8Array {
  const s = text.replaceAll('-', '+').replaceAll('_', '/');
  return Uint8Array.from(atob(s + '='.repeat((4 - (s.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

/** Parses the ring from its Worker secret; a malformed one is refused with what is wrong (never the key). */
export async function parseKeyRing(spec: string): Promise<KeyRing> {
  const entries = spec
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (!entries.length) throw new SecretKeyError('SECRETS_ENCRYPTION_KEYS is empty');
  const keys = new Map<string, CryptoKey>();
  for (const entry of entries) {
    const m = /^([A-Za-z0-9_-]{1,32}):([A-Za-z0-9+/_=-]+)$/.exec(entry);
    if (!m) throw new SecretKeyError('SECRETS_ENCRYPTION_KEYS entries are "<key id>:<base64 key>", comma-separated');
    const raw = unb64(m[2]!);
    if (raw.length !== 32) throw new SecretKeyError(`SECRETS_ENCRYPTION_KEYS key "${m[1]}" is not 32 bytes`);
    if (keys.has(m[1]!)) throw new SecretKeyError(`SECRETS_ENCRYPTION_KEYS names key "${m[1]}" twice`);
    keys.set(m[1]!, await crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']));
  }
  return { currentKid: entries[0]!.split(':')[0]!, keys };
}

export async function sealSecret(plaintext: string, ring: KeyRing): Promise<SealedSecret> {
  const key = ring.keys.get(ring.currentKid)!;
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(plaintext)),
  );
  return { kid: ring.currentKid, iv: b64(iv), ct: b64(ct) };
}

export async function openSecret(sealed: SealedSecret, ring: KeyRing): Promise<string> {
  const key = ring.keys.get(sealed.kid);
  if (!key)
    throw new SecretKeyError(
      `a secret is sealed with key "${sealed.kid}", which SECRETS_ENCRYPTION_KEYS does not hold`,
    );
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: unb64(sealed.iv) }, key, unb64(sealed.ct));
    return new TextDecoder().decode(plain);
  } catch {
    throw new SecretKeyError(
      `a secret sealed with key "${sealed.kid}" does not open: wrong key material, or the ciphertext was altered`,
    );
  }
}

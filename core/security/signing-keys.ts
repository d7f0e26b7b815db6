import { timingSafeEqual } from './constant-time.js';
import { hex } from './digest.js';

/**
 * The Worker's SESSION_SECRET signs three kinds of thing that come back to it: pinned
 * confirmation/approval terms, button payloads, and dashboard session cookies. Each purpose has
 * its own key, derived with HKDF-SHA-256 (RFC 5869, Web Crypto's own), so a signature made for one
 * purpose is never valid for another and no key says anything about the secret or its siblings.
 *
 * Rotation: while SESSION_SECRET_PREVIOUS is set, what it signed still verifies (nothing is ever
 * signed with it). Pending rows and open sessions therefore survive a change of SESSION_SECRET;
 * remove the previous one once they have expired (an approval's hour, a session's 8 hours).
 *
 * Before the derived keys, terms and buttons were keyed with `<purpose>:<secret>` and cookies with
 * the secret itself. Those keys still verify, so what was signed before this version is honoured
 * until it expires; they are derived from the same secrets, so accepting them adds no key an
 * attacker could hold that the secret would not give anyway.
 */
export type KeyPurpose = 'pinned-terms' | 'callback' | 'dashboard-session';

export interface SigningSecrets {
  current: string;
  /** The secret before the last rotation: verifies, never signs. */
  previous?: string | undefined;
}

/** A bare string is a secret with no rotation under way. */
export type SecretsInput = string | SigningSecrets;

export function signingSecrets(input: SecretsInput): SigningSecrets {
  return typeof input === 'string' ? { current: input } : input;
}

const SALT = new TextEncoder().encode('staged-agent signing keys v1');
/** Derivations are cached per isolate: the secrets are few (current, previous) and fixed. */
const derived = new Map<string, Promise<Uint8Array>>();
const CACHE_LIMIT = 32;

async function hkdf(secret: string, purpose: KeyPurpose): Promise<Uint8Array> {
  const ikm = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: SALT, info: new TextEncoder().encode(purpose) },
    ikm,
    256,
  );
  return new Uint8Array(bits);
}

function purposeKey(secret: string, purpose: KeyPurpose): Promise<Uint8Array> {
  const id = `${purpose}\n${secret}`;
  let key = derived.get(id);
  if (!key) {
    if (derived.size >= CACHE_LIMIT) derived.clear();
    key = hkdf(secret, purpose);
    derived.set(id, key);
  }
  return key;
}

/** The key of the version before derived keys (see above). */
function legacyKey(secret: string, purpose: KeyPurpose): Uint8Array {
  return new TextEncoder().encode(purpose === 'dashboard-session' ? secret : `${purpose}:${secret}`);
}

/** The one key that signs for `purpose`: derived from the current secret. */
export function signingKey(input: SecretsInput, purpose: KeyPurpose): Promise<Uint8Array> {
  return purposeKey(signingSecrets(input).current, purpose);
}

/** Every key a signature for `purpose` may have been made with, the signing key first. */
export async function verificationKeys(input: SecretsInput, purpose: KeyPurpose): Promise<Uint8Array[]> {
  const { current, previous } = signingSecrets(input);
  const secrets = previous && previous !== current ? [current, previous] : [current];
  const derivedKeys = await Promise.all(secrets.map((s) => purposeKey(s, purpose)));
  return [...derivedKeys, ...secrets.map((s) => legacyKey(s, purpose))];
}

/**
 * Imported keys by the derived key's bytes: `purposeKey` hands out the same array for a secret and
 * purpose all the isolate's life, so each is imported once, not on every signature (a button, a
 * pinned row, a cookie). A legacy key is a new array each time and simply misses.
 */
const imported = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function importedKey(key: Uint8Array): Promise<CryptoKey> {
  let k = imported.get(key);
  if (!k) {
    k = crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    k.catch(() => imported.delete(key));
    imported.set(key, k);
  }
  return k;
}

export async function hmacHex(key: Uint8Array, text: string): Promise<string> {
  return hex(await crypto.subtle.sign('HMAC', await importedKey(key), new TextEncoder().encode(text)));
}

/** The hex HMAC of `text` for `purpose`, under the signing key. */
export async function signFor(input: SecretsInput, purpose: KeyPurpose, text: string): Promise<string> {
  return hmacHex(await signingKey(input, purpose), text);
}

/**
 * Whether `sig` is the HMAC of `text` under any of the purpose's verification keys. Every key is
 * tried, each compared in constant time, so the time says nothing about which one matched.
 */
export async function verifyFor(input: SecretsInput, purpose: KeyPurpose, text: string, sig: string): Promise<boolean> {
  const enc = new TextEncoder();
  const given = enc.encode(sig);
  let matched = false;
  for (const key of await verificationKeys(input, purpose)) {
    if (timingSafeEqual(enc.encode(await hmacHex(key, text)), given)) matched = true;
  }
  return matched;
}

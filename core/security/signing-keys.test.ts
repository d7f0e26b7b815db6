import { describe, expect, it } from 'vitest';
import { hmacHex, signFor, signingKey, verificationKeys, verifyFor, type KeyPurpose } from './signing-keys.js';

const OLD = 'the-secret-before-the-rotation';
const NEW = 'the-secret-after-the-rotation';
const PURPOSES: KeyPurpose[] = ['pinned-terms', 'callback', 'dashboard-session'];

/** RFC 5869 HKDF-SHA-256 written out with HMAC, to check the derivation is HKDF and nothing else. */
async function hkdfByHand(secret: string, info: string): Promise<string> {
  const hmac = async (key: Uint8Array, data: Uint8Array) => {
    const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return new Uint8Array(await crypto.subtle.sign('HMAC', k, data));
  };
  const enc = new TextEncoder();
  const prk = await hmac(enc.encode('staged-agent signing keys v1'), enc.encode(secret));
  const okm = await hmac(prk, new Uint8Array([...enc.encode(info), 1]));
  return [...okm].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

describe('per-purpose signing keys', () => {
  it('are HKDF-SHA-256 of the secret with the purpose as info, a different key per purpose', async () => {
    const keys = await Promise.all(PURPOSES.map((p) => signingKey(NEW, p)));
    for (const [i, p] of PURPOSES.entries()) expect(hex(keys[i]!)).toBe(await hkdfByHand(NEW, p));
    expect(new Set(keys.map(hex)).size).toBe(3);
    expect(hex(await signingKey({ current: NEW, previous: OLD }, 'callback'))).toBe(hex(keys[1]!));
  });

  it('a signature made for one purpose does not verify for another', async () => {
    const sig = await signFor(NEW, 'callback', 'v1\nconfirm\nt\n7\ncf_1\nyes\nn');
    expect(await verifyFor(NEW, 'callback', 'v1\nconfirm\nt\n7\ncf_1\nyes\nn', sig)).toBe(true);
    expect(await verifyFor(NEW, 'pinned-terms', 'v1\nconfirm\nt\n7\ncf_1\nyes\nn', sig)).toBe(false);
    expect(await verifyFor(NEW, 'callback', 'v1\nconfirm\nt\n7\ncf_1\nno\nn', sig)).toBe(false);
  });

  it('during a rotation what the previous secret signed verifies; after it, it does not; nothing signs with it', async () => {
    const oldSig = await signFor(OLD, 'pinned-terms', 'terms');
    expect(await verifyFor({ current: NEW, previous: OLD }, 'pinned-terms', 'terms', oldSig)).toBe(true);
    expect(await verifyFor({ current: NEW }, 'pinned-terms', 'terms', oldSig)).toBe(false);
    expect(await verifyFor(NEW, 'pinned-terms', 'terms', oldSig)).toBe(false);
    expect(await signFor({ current: NEW, previous: OLD }, 'pinned-terms', 'terms')).toBe(
      await signFor(NEW, 'pinned-terms', 'terms'),
    );
  });

  it('what the version before derived keys signed (<purpose>:<secret>; the bare secret for cookies) still verifies', async () => {
    const enc = new TextEncoder();
    expect(await verifyFor(NEW, 'callback', 'x', await hmacHex(enc.encode(`callback:${NEW}`), 'x'))).toBe(true);
    expect(await verifyFor(NEW, 'pinned-terms', 'x', await hmacHex(enc.encode(`pinned-terms:${NEW}`), 'x'))).toBe(true);
    // Not across purposes: the old callback key is no pinned-terms key.
    expect(await verifyFor(NEW, 'pinned-terms', 'x', await hmacHex(enc.encode(`callback:${NEW}`), 'x'))).toBe(false);
    const cookieKeys = (await verificationKeys(NEW, 'dashboard-session')).map((k) => new TextDecoder().decode(k));
    expect(cookieKeys).toContain(NEW);
  });

  it('verification keys: the signing key first, then the previous secret, then the older forms; a previous equal to the current adds nothing', async () => {
    const keys = await verificationKeys({ current: NEW, previous: OLD }, 'callback');
    expect(keys).toHaveLength(4);
    expect(hex(keys[0]!)).toBe(hex(await signingKey(NEW, 'callback')));
    expect(hex(keys[1]!)).toBe(hex(await signingKey(OLD, 'callback')));
    expect(await verificationKeys({ current: NEW, previous: NEW }, 'callback')).toHaveLength(2);
    expect(await verificationKeys({ current: NEW, previous: '' }, 'callback')).toHaveLength(2);
  });

  it('a forged signature of the right length fails under every key', async () => {
    expect(await verifyFor({ current: NEW, previous: OLD }, 'callback', 'x', '0'.repeat(64))).toBe(false);
    expect(await verifyFor({ current: NEW, previous: OLD }, 'callback', 'x', '')).toBe(false);
  });
});

describe('the per-isolate cache of derived keys', () => {
  it('derives a secret and purpose once, and holds at most 32 derivations (then starts over)', async () => {
    // The cache is shared with every other test in the isolate, so first reach a known state: add
    // fresh secrets until the first of them is dropped (the cache was full and started over); asking
    // for it again then leaves exactly two entries. Every cache step is synchronous: nothing interleaves.
    const run = `${Date.now()}-${Math.random()}`;
    const first = signingKey(`${run}-u0`, 'callback');
    let dropped = false;
    for (let i = 1; i <= 40 && !dropped; i++) {
      void signingKey(`${run}-u${i}`, 'callback');
      dropped = signingKey(`${run}-u0`, 'callback') !== first;
    }
    expect(dropped).toBe(true);
    const held = signingKey(`${run}-u0`, 'callback');
    for (let i = 1; i <= 30; i++) void signingKey(`${run}-v${i}`, 'callback');
    // 32 held: asked again, it is the same derivation, not a new one.
    expect(signingKey(`${run}-u0`, 'callback')).toBe(held);
    // The 33rd empties the cache first, so it is derived again (the same key, a new derivation).
    void signingKey(`${run}-v31`, 'callback');
    const again = signingKey(`${run}-u0`, 'callback');
    expect(again).not.toBe(held);
    expect(hex(await again)).toBe(hex(await held));
    expect(hex(await held)).toBe(await hkdfByHand(`${run}-u0`, 'callback'));
  });
});

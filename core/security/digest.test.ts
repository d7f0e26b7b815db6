import { describe, expect, it } from 'vitest';
import { hex, hmacKey, hmacSha256Hex, sha256Hex } from './digest.js';

const naiveHex = (bytes: ArrayBuffer) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

async function freshHmac(key: string, text: string): Promise<string> {
  const k = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return naiveHex(await crypto.subtle.sign('HMAC', k, new TextEncoder().encode(text)));
}

describe('hex digests', () => {
  it('hex writes every byte value as two lower-case digits', () => {
    const all = new Uint8Array(256).map((_, i) => i);
    expect(hex(all.buffer)).toBe(naiveHex(all.buffer));
    expect(hex(new ArrayBuffer(0))).toBe('');
  });

  it('sha256Hex is SHA-256 (a known vector)', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('HMAC keys are imported once per isolate, per key', () => {
  it('the same key text gives the same imported key; the MAC is the one a fresh import gives', async () => {
    const key = `tenant-secret:${'k'.repeat(40)}`;
    expect(await hmacKey(key)).toBe(await hmacKey(key));
    expect(await hmacSha256Hex(key, 'a webhook secret')).toBe(await freshHmac(key, 'a webhook secret'));
    expect(await hmacSha256Hex(key, 'a webhook secret')).toBe(await freshHmac(key, 'a webhook secret'));
  });

  it('two keys never share an imported key or a MAC (the key after the first is not answered from the cache)', async () => {
    const [a, b] = [`tenant-secret:${'a'.repeat(40)}`, `tenant-secret:${'b'.repeat(40)}`];
    expect(await hmacKey(a)).not.toBe(await hmacKey(b));
    const [ma, mb] = [await hmacSha256Hex(a, 'same text'), await hmacSha256Hex(b, 'same text')];
    expect(ma).not.toBe(mb);
    expect(ma).toBe(await freshHmac(a, 'same text'));
    expect(mb).toBe(await freshHmac(b, 'same text'));
  });

  it('past the bound the cache starts again and still answers right', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}-${'x'.repeat(32)}`);
    for (const k of keys) expect(await hmacSha256Hex(k, 't')).toBe(await freshHmac(k, 't'));
  });
});

import { describe, expect, it } from 'vitest';
import { hmacMatchesStored, keyedHash, verifyHashedSecret } from './keyed-hash.js';

const KEY = 'hash-key';

describe('a kept secret hash checked against the stored one', () => {
  it('matches the current secret, and the previous one only if its window was open when the request came', async () => {
    const stored = {
      hmac: await keyedHash('new', KEY),
      previous: { hmac: await keyedHash('old', KEY), validUntil: '2030-01-01T00:00:00.000Z' },
    };
    const before = new Date('2029-12-31T23:00:00.000Z');
    const after = new Date('2030-01-01T01:00:00.000Z');
    expect(await hmacMatchesStored(await keyedHash('new', KEY), stored, after)).toBe(true);
    expect(await hmacMatchesStored(await keyedHash('old', KEY), stored, before)).toBe(true);
    expect(await hmacMatchesStored(await keyedHash('old', KEY), stored, after)).toBe(false);
    // The window ends at validUntil: a request at that instant is past it.
    expect(await hmacMatchesStored(await keyedHash('old', KEY), stored, new Date(stored.previous.validUntil))).toBe(
      false,
    );
    expect(await hmacMatchesStored(await keyedHash('other', KEY), stored, before)).toBe(false);
    // Hashed under another key, the right secret is no match.
    expect(await hmacMatchesStored(await keyedHash('new', 'other-key'), stored, after)).toBe(false);
    expect(await hmacMatchesStored('not a date', stored, new Date('x'))).toBe(false);
  });

  it('is no match without a stored hash, even for the placeholder it compares against', async () => {
    expect(await hmacMatchesStored('0'.repeat(64), undefined, new Date())).toBe(false);
    expect(await hmacMatchesStored('0'.repeat(64), null, new Date())).toBe(false);
    expect(await verifyHashedSecret('x', undefined, KEY)).toBe(false);
  });
});

describe('keyed hashes are compared as they are (64 hex digits), anything else through a hash of both', () => {
  it('a stored hash that differs in one digit, in case, or in a character outside ASCII is no match', async () => {
    const hmac = await keyedHash('secret', KEY);
    const at = new Date();
    expect(await hmacMatchesStored(hmac, { hmac }, at)).toBe(true);
    const flipped = `${hmac.slice(0, 63)}${hmac[63] === '0' ? '1' : '0'}`;
    expect(await hmacMatchesStored(hmac, { hmac: flipped }, at)).toBe(false);
    expect(await hmacMatchesStored(hmac, { hmac: hmac.toUpperCase() }, at)).toBe(hmac === hmac.toUpperCase());
    // 64 characters, more than 64 bytes: no match, and no exception from the byte comparison.
    expect(await hmacMatchesStored(hmac, { hmac: `é${hmac.slice(1)}` }, at)).toBe(false);
  });

  it('a stored value that is not 64 characters (a corrupt record) is compared through hashes, and is no match', async () => {
    const hmac = await keyedHash('secret', KEY);
    expect(await hmacMatchesStored(hmac, { hmac: hmac.slice(0, 40) }, new Date())).toBe(false);
    expect(await hmacMatchesStored(hmac, { hmac: `${hmac}00` }, new Date())).toBe(false);
  });
});

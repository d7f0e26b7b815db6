import { describe, expect, it } from 'vitest';
import { tenantKeys } from './keys.js';

describe('tenantKeys is built once per tenant id per isolate', () => {
  it('the same id gives the same frozen object; its keys carry the tenant prefix', () => {
    const a = tenantKeys('keys-cache-a');
    expect(tenantKeys('keys-cache-a')).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(a.config).toBe('t:keys-cache-a:config');
    expect(a.turn('turn_1')).toBe('t:keys-cache-a:turn:turn_1');
  });

  it("two tenants never share a key or a builder: each key is under its own tenant's prefix", () => {
    const [a, b] = [tenantKeys('keys-cache-a'), tenantKeys('keys-cache-b')];
    expect(b).not.toBe(a);
    expect(b.config).toBe('t:keys-cache-b:config');
    expect(a.history('7')).toBe('t:keys-cache-a:history:7');
    expect(b.history('7')).toBe('t:keys-cache-b:history:7');
    // Interleaved use leaves each answering for its own tenant.
    expect(tenantKeys('keys-cache-a').history('7')).toBe('t:keys-cache-a:history:7');
  });

  it('an invalid id is refused every time (never remembered), and the builders still check their ids', () => {
    for (let i = 0; i < 2; i++) expect(() => tenantKeys('Not A Tenant')).toThrow(/tenant id/);
    expect(() => tenantKeys('keys-cache-a').turn('bad id')).toThrow(/key/);
  });

  it('past the bound the cache starts again and still answers right', () => {
    for (let i = 0; i < 1100; i++) expect(tenantKeys(`keys-bound-${i}`).rev).toBe(`t:keys-bound-${i}:rev`);
    expect(tenantKeys('keys-cache-a').rev).toBe('t:keys-cache-a:rev');
  });
});

import { describe, expect, it } from 'vitest';
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from './password.js';

describe('dashboard passwords (PBKDF2-SHA256, Web Crypto)', () => {
  it('stores the algorithm, 100,000 iterations, a per-user salt and a 256-bit hash; verifies only the right password', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).toMatchObject({ algorithm: 'pbkdf2-sha256', iterations: PBKDF2_ITERATIONS });
    expect(PBKDF2_ITERATIONS).toBe(100_000);
    expect(atob(a.salt)).toHaveLength(16);
    expect(atob(a.hash)).toHaveLength(32);
    expect(a.salt).not.toBe(b.salt);
    expect(a.hash).not.toBe(b.hash);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horse ', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
    expect(await verifyPassword('correct horse', { ...a, salt: b.salt })).toBe(false);
  });

  it('an unknown user (no stored hash) never verifies', async () => {
    expect(await verifyPassword('anything', null)).toBe(false);
  });
});

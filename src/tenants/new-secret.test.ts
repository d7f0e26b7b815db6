import { afterEach, describe, expect, it, vi } from 'vitest';
import { generatePassword } from '../dashboard/auth/users.js';
import { newSecret } from './provisioning.js';

/** Bytes whose base64url starts with "-" (0xf8 → index 62 → "+" → "-"). */
function leadingDashOnce() {
  const real = crypto.getRandomValues.bind(crypto);
  let first = true;
  return vi.spyOn(crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
    if (first && array instanceof Uint8Array) {
      first = false;
      array.fill(0xf8);
      return array;
    }
    return real(array as never) as T;
  });
}

afterEach(() => vi.restoreAllMocks());

describe('generated secrets never start with a dash (a command line would read them as an option)', () => {
  it('newSecret: 43 base64url characters, redrawn when the first would be "-"', () => {
    const spy = leadingDashOnce();
    const secret = newSecret();
    expect(spy).toHaveBeenCalledTimes(2);
    expect(secret).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
  });

  it('generatePassword: the same', () => {
    const spy = leadingDashOnce();
    const password = generatePassword();
    expect(spy).toHaveBeenCalledTimes(2);
    expect(password).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{23}$/);
  });
});

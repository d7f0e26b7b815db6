import { z } from 'zod';
import { timingSafeEqual } from '../../../core/security/constant-time.js';

/**
 * Dashboard passwords: PBKDF2-SHA256 from Web Crypto with a per-user random salt. 100,000
 * iterations is the most deployed Workers allow (local workerd allows more); the count is stored
 * with each hash so it can be raised later without breaking existing users.
 */
export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const KEY_BITS = 256;

export const PasswordHashSchema = z.object({
  algorithm: z.literal('pbkdf2-sha256'),
  iterations: z.number().int().min(10_000).max(1_000_000),
  salt: z.string().min(1),
  hash: z.string().min(1),
});
export type PasswordHash = z.infer<typeof PasswordHashSchema>;

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, KEY_BITS);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<PasswordHash> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return {
    algorithm: 'pbkdf2-sha256',
    iterations,
    salt: toBase64(salt),
    hash: toBase64(await derive(password, salt, iterations)),
  };
}

/** A stand-in hash for unknown users, so "no such user" costs the same derivation as a wrong password. */
const DUMMY: PasswordHash = {
  algorithm: 'pbkdf2-sha256',
  iterations: PBKDF2_ITERATIONS,
  salt: 'AAAAAAAAAAAAAAAAAAAAAA==',
  hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
};

/** Whether `password` matches `stored` (null: unknown user, always false after the same work). */
export async function verifyPassword(password: string, stored: PasswordHash | null): Promise<boolean> {
  const target = stored ?? DUMMY;
  const derived = await derive(password, fromBase64(target.salt), target.iterations);
  const equal = timingSafeEqual(derived, fromBase64(target.hash));
  return stored !== null && equal;
}

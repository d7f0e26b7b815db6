import { z } from 'zod';

/**
 * A tenant id: lower-case letters, digits and hyphens, starting with a letter or digit, at most
 * 63 characters. Every Redis key of a tenant starts with `t:{id}:`, so an id may never contain
 * the separator (`:`) or anything that could make two tenants' key spaces overlap.
 */
export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const TenantIdSchema = z
  .string()
  .regex(
    TENANT_ID_PATTERN,
    'a tenant id is 1–63 lower-case letters, digits and hyphens, starting with a letter or digit',
  );

/** `unknown`, not `string`: a route param or a JSON field that is missing must not pass as the
 * tenant "undefined" or "null" (RegExp.test coerces its argument to a string). */
export function isTenantId(value: unknown): boolean {
  return typeof value === 'string' && TENANT_ID_PATTERN.test(value);
}

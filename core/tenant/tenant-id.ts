import { z } from 'zod';

/**
 * A tenant id: lower-case letters, digits and hyphens, starting with a letter or digit, at most
 * 63 characters. Every Redis key of a tenant starts with `t:{id}:`, so an id may never contain
 * the separator (`:`) or anything that could make two tenants' key spaces overlap.
 */
export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const TenantIdSchema = z.string().regex(TENANT_ID_PATTERN, 'a tenant id is 1–63 lower-case letters, digits and hyphens, starting with a letter or digit');

export function isTenantId(value: string): boolean {
  return TENANT_ID_PATTERN.test(value);
}

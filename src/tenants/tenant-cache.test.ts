import { afterEach, describe, expect, it } from 'vitest';
import type { LoadedTenant } from '../http/app-context.js';
import {
  cachedTenant,
  forgetTenant,
  forgetTenants,
  rememberTenant,
  TENANT_CACHE_BYTES,
  tenantCacheSize,
} from './tenant-cache.js';

/** Only the id matters to the cache; the rest is carried, never read. */
const tenant = (tenantId: string) =>
  ({ config: { tenantId }, secrets: {}, meta: { status: 'active' } }) as unknown as LoadedTenant;

describe("the isolate's tenant cache is bounded by stored bytes, not by a count", () => {
  afterEach(() => forgetTenants());

  it('holds 2,000 demo-sized tenants (3.7 KB stored each) at once: an isolate serving them in turn hits on every one', () => {
    forgetTenants();
    for (let i = 0; i < 2000; i++) rememberTenant(tenant(`demo-${i}`), 1, 3700);
    const hits = Array.from({ length: 2000 }, (_, i) => cachedTenant(`demo-${i}`)).filter(Boolean).length;
    expect(hits).toBe(2000);
    expect(tenantCacheSize()).toEqual({ tenants: 2000, bytes: 2000 * 3700 });
  });

  it('past the budget the least recently used tenant goes first, and a hit counts as a use', () => {
    forgetTenants();
    const quarter = Math.floor(TENANT_CACHE_BYTES / 4);
    for (const id of ['a', 'b', 'c', 'd']) rememberTenant(tenant(id), 1, quarter);
    expect(cachedTenant('a')?.tenant.config.tenantId).toBe('a'); // a is now the most recent
    rememberTenant(tenant('e'), 1, quarter);
    expect(cachedTenant('b')).toBeNull();
    for (const id of ['a', 'c', 'd', 'e']) expect(cachedTenant(id)?.rev).toBe(1);
    expect(tenantCacheSize().bytes).toBeLessThanOrEqual(TENANT_CACHE_BYTES);
  });

  it('large tenants take their size: a few 60 KB-menu tenants cannot crowd the isolate past its budget', () => {
    forgetTenants();
    const large = 60 * 1024;
    for (let i = 0; i < 500; i++) rememberTenant(tenant(`large-${i}`), 1, large);
    expect(tenantCacheSize().bytes).toBeLessThanOrEqual(TENANT_CACHE_BYTES);
    expect(tenantCacheSize().tenants).toBe(Math.floor(TENANT_CACHE_BYTES / large));
    expect(cachedTenant('large-499')).not.toBeNull();
    expect(cachedTenant('large-0')).toBeNull();
  });

  it('a re-read replaces the copy and its size (never counted twice); a tenant larger than the budget is not kept, nor its older copy', () => {
    forgetTenants();
    rememberTenant(tenant('x'), 1, 1000);
    rememberTenant(tenant('x'), 2, 3000);
    expect(tenantCacheSize()).toEqual({ tenants: 1, bytes: 3000 });
    expect(cachedTenant('x')?.rev).toBe(2);
    rememberTenant(tenant('x'), 3, TENANT_CACHE_BYTES + 1);
    expect(cachedTenant('x')).toBeNull();
    expect(tenantCacheSize()).toEqual({ tenants: 0, bytes: 0 });
  });

  it('a deleted tenant is forgotten with its bytes', () => {
    forgetTenants();
    rememberTenant(tenant('gone'), 1, 5000);
    forgetTenant('gone');
    expect(cachedTenant('gone')).toBeNull();
    expect(tenantCacheSize()).toEqual({ tenants: 0, bytes: 0 });
  });
});

/**
 * How many deliveries one isolate may keep unauthenticated (Redis down, tenant not cached) — a
 * per-tenant and a per-isolate token bucket, refilled continuously over a minute. Redis is down,
 * so the count lives in memory; it only has to stop a flood of forged requests from filling
 * QStash (each kept one is authenticated, and dropped if forged, when it runs). Bounded: at most
 * `MAX_TENANTS` buckets, the oldest forgotten first (a forgotten tenant still shares the isolate's).
 */
export const UNVERIFIED_KEEPS_PER_TENANT_PER_MINUTE = 20;
export const UNVERIFIED_KEEPS_PER_ISOLATE_PER_MINUTE = 200;
const MAX_TENANTS = 1000;
const MINUTE_MS = 60_000;

interface Bucket {
  tokens: number;
  at: number;
}

export interface OutageKeepBudget {
  /** Takes one keep for the tenant at `now` (ms); false when the tenant's or the isolate's budget is spent. */
  take(tenantId: string, now: number): boolean;
}

export function outageKeepBudget(
  perTenant = UNVERIFIED_KEEPS_PER_TENANT_PER_MINUTE,
  perIsolate = UNVERIFIED_KEEPS_PER_ISOLATE_PER_MINUTE,
): OutageKeepBudget {
  const tenants = new Map<string, Bucket>();
  let isolate: Bucket | null = null;
  const refill = (b: Bucket, cap: number, now: number) => {
    b.tokens = Math.min(cap, b.tokens + (Math.max(0, now - b.at) / MINUTE_MS) * cap);
    b.at = now;
  };
  return {
    take(tenantId, now) {
      isolate ??= { tokens: perIsolate, at: now };
      let bucket = tenants.get(tenantId);
      if (!bucket) {
        if (tenants.size >= MAX_TENANTS) tenants.delete(tenants.keys().next().value as string);
        bucket = { tokens: perTenant, at: now };
        tenants.set(tenantId, bucket);
      }
      refill(bucket, perTenant, now);
      refill(isolate, perIsolate, now);
      if (bucket.tokens < 1 || isolate.tokens < 1) return false;
      bucket.tokens -= 1;
      isolate.tokens -= 1;
      return true;
    },
  };
}

/** This isolate's budget (a new isolate starts with a full one). */
export const isolateOutageKeeps = outageKeepBudget();

/**
 * The per-minute cap on hedged model calls, per tenant, kept in the isolate (a hedge is decided
 * in the middle of a model call: a Redis round trip there would cost the very latency the hedge
 * saves). Across isolates the cap is per isolate, so a tenant's true rate may be a small multiple
 * of it; it bounds cost, it is not a quota.
 */
const WINDOW_MS = 60_000;
const recent = new Map<string, number[]>();

/** Takes one hedge from the tenant's budget if the last minute has room; false otherwise. */
export function takeHedge(tenantId: string, maxPerMinute: number, now = Date.now()): boolean {
  const kept = (recent.get(tenantId) ?? []).filter((t) => t > now - WINDOW_MS);
  if (kept.length >= maxPerMinute) {
    recent.set(tenantId, kept);
    return false;
  }
  kept.push(now);
  recent.set(tenantId, kept);
  return true;
}

/** For tests: a fresh isolate. */
export function forgetHedges(): void {
  recent.clear();
}

import type { TurnRecord } from '../turn-record.js';
import type { ConditionalWrites } from './conditional-writes.js';
import { tenantKeys } from './keys.js';
import type { RedisSession } from './redis-session.js';

/**
 * The turn-metrics store: one hash per tenant and hour (`metricsHour(hour)`) counting turns,
 * decisions, deferred turns, delivery failures and a latency histogram — what Health's 24 h and
 * 7 day charts read. The turn log keeps only the newest 1,000 turns, which a busy tenant passes
 * in hours, so the charts cannot be computed from records; an hourly aggregate is a fixed 24 or
 * 168 HGETALLs in one round trip whatever the traffic. No contact's words are stored here, so the
 * hashes expire after 8 days (the 7-day window and a margin), not with the tenant's retention.
 *
 * Percentiles come from the histogram: the upper bound of the bucket the rank falls in (so a p95
 * "≤ 3,000 ms" means the 95th-percentile turn took at most that). Exact values would need every
 * latency kept; Prometheus-style buckets are the well-known trade (the error is one bucket width).
 */
export const METRICS_TTL_SECONDS = 8 * 24 * 3600;
const HOUR_MS = 3_600_000;

/** Upper bounds (ms) of the latency buckets; a latency above the last lands in the overflow bucket. */
export const LATENCY_BOUNDS_MS = [
  100, 250, 500, 750, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10_000, 12_000, 15_000, 20_000,
  30_000, 60_000,
] as const;

export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS);

/** The histogram bucket of a latency: the first bound it does not exceed, or the overflow bucket. */
export function latencyBucket(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i < 0 ? LATENCY_BOUNDS_MS.length : i;
}

/** One hour's counts as read back. `latency[i]` counts turns in bucket i (the last is the overflow). */
export interface HourMetrics {
  hour: number;
  turns: number;
  pass: number;
  veto: number;
  escalate: number;
  error: number;
  deferred: number;
  /** Actions delivery gave up on (dead) or whose outcome is unknown, by when that was recorded. */
  deliveryFailures: number;
  latency: number[];
}

/** Queues the turn's counts into the commit's one atomic script: counted once, exactly when the record is written. */
export function queueTurnMetrics(w: ConditionalWrites, record: TurnRecord): void {
  const key = tenantKeys(record.tenantId).metricsHour(hourOf(Date.parse(record.startedAt)));
  w.call('HINCRBY', key, 'turns', 1);
  w.call('HINCRBY', key, `decision:${record.decision}`, 1);
  if (record.deferred) w.call('HINCRBY', key, 'deferred', 1);
  w.call('HINCRBY', key, `latency:${latencyBucket(record.timings.totalMs)}`, 1);
  w.call('EXPIRE', key, METRICS_TTL_SECONDS);
}

/**
 * Counts one action that became dead or unknown. A round trip of its own after the ledger's
 * transition (not inside the ledger's script, which owns only the ledger and dead-letter list):
 * a crash between the two loses one count on a chart, never a delivery or a letter.
 */
export async function countDeliveryFailure(session: RedisSession, tenantId: string, at: Date): Promise<void> {
  const key = tenantKeys(tenantId).metricsHour(hourOf(at.getTime()));
  await session.pipeline((p) => {
    p.hincrby(key, 'deliveryFailures', 1);
    p.expire(key, METRICS_TTL_SECONDS);
  });
}

/** HGETALL's reply as field → number, whichever shape the client gives (flat array or object). */
function countsOf(reply: unknown): Map<string, number> {
  const counts = new Map<string, number>();
  const put = (field: unknown, value: unknown) => {
    const n = Number(value);
    if (typeof field === 'string' && Number.isFinite(n)) counts.set(field, n);
  };
  if (Array.isArray(reply)) for (let i = 0; i + 1 < reply.length; i += 2) put(reply[i], reply[i + 1]);
  else if (reply && typeof reply === 'object') for (const [f, v] of Object.entries(reply)) put(f, v);
  return counts;
}

export function hourMetricsOf(hour: number, reply: unknown): HourMetrics {
  const c = countsOf(reply);
  const n = (field: string) => c.get(field) ?? 0;
  return {
    hour,
    turns: n('turns'),
    pass: n('decision:pass'),
    veto: n('decision:veto'),
    escalate: n('decision:escalate'),
    error: n('decision:error'),
    deferred: n('deferred'),
    deliveryFailures: n('deliveryFailures'),
    latency: Array.from({ length: LATENCY_BOUNDS_MS.length + 1 }, (_, i) => n(`latency:${i}`)),
  };
}

/** The last `hours` whole and current hours up to `nowMs`, oldest first, one entry per hour (zeros where nothing happened). One round trip. */
export async function readHourlyMetrics(
  session: RedisSession,
  tenantId: string,
  nowMs: number,
  hours: number,
): Promise<HourMetrics[]> {
  const keys = tenantKeys(tenantId);
  const last = hourOf(nowMs);
  const wanted = Array.from({ length: hours }, (_, i) => last - hours + 1 + i);
  const replies = await session.pipeline((p) => {
    for (const hour of wanted) p.hgetall(keys.metricsHour(hour));
  });
  return wanted.map((hour, i) => hourMetricsOf(hour, replies[i]));
}

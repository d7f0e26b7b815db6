import { LATENCY_BOUNDS_MS, type HourMetrics } from '../../../core/storage/turn-metrics.js';

/** One point of a Health chart: a span of hours summed. */
export interface SeriesPoint {
  /** Start of the span (ms since the epoch, UTC). */
  startMs: number;
  /** Start of the span's last hour: a day's point is named by the date it ends on. */
  lastHourMs: number;
  turns: number;
  /** Upper bound (ms) of the histogram bucket holding the rank; null when there were no turns, Infinity past the last bound. */
  p50: number | null;
  p95: number | null;
  pass: number;
  veto: number;
  escalate: number;
  error: number;
  deferred: number;
  /** deferred ÷ turns (0 with no turns). */
  deferredShare: number;
  deliveryFailures: number;
}

export interface HealthWindow {
  id: '24h' | '7d';
  label: string;
  /** How long one point spans. */
  spanHours: number;
  points: SeriesPoint[];
  total: SeriesPoint;
}

/**
 * Nearest-rank percentile of a histogram: the upper bound of the bucket where the cumulative
 * count first reaches ⌈p·n⌉. The overflow bucket answers Infinity ("over the last bound").
 */
export function histogramPercentile(buckets: readonly number[], p: number): number | null {
  const n = buckets.reduce((a, b) => a + b, 0);
  if (!n) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * n));
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i]!;
    if (seen >= rank) return LATENCY_BOUNDS_MS[i] ?? Infinity;
  }
  return Infinity;
}

function sum(hours: readonly HourMetrics[], startMs: number): SeriesPoint {
  const lastHourMs = hours.length ? hours[hours.length - 1]!.hour * 3_600_000 : startMs;
  const latency = Array.from({ length: LATENCY_BOUNDS_MS.length + 1 }, (_, i) =>
    hours.reduce((a, h) => a + (h.latency[i] ?? 0), 0),
  );
  const total = (f: keyof Omit<HourMetrics, 'latency' | 'hour'>) => hours.reduce((a, h) => a + h[f], 0);
  const turns = total('turns');
  const deferred = total('deferred');
  return {
    startMs,
    lastHourMs,
    turns,
    p50: histogramPercentile(latency, 50),
    p95: histogramPercentile(latency, 95),
    pass: total('pass'),
    veto: total('veto'),
    escalate: total('escalate'),
    error: total('error'),
    deferred,
    deferredShare: turns ? deferred / turns : 0,
    deliveryFailures: total('deliveryFailures'),
  };
}

/** Hours (oldest first, consecutive) summed into points of `spanHours` each, aligned to the newest hour. */
export function seriesOf(
  hours: readonly HourMetrics[],
  spanHours: number,
): { points: SeriesPoint[]; total: SeriesPoint } {
  const points: SeriesPoint[] = [];
  // Align from the newest hour backwards, so the last point always ends with the current hour.
  for (let end = hours.length; end > 0; end -= spanHours) {
    const slice = hours.slice(Math.max(0, end - spanHours), end);
    points.unshift(sum(slice, slice[0]!.hour * 3_600_000));
  }
  return { points, total: sum(hours, hours.length ? hours[0]!.hour * 3_600_000 : 0) };
}

/** The two windows Health shows: the last 24 h by hour, the last 7 days by day (from 168 hours read). */
export function healthWindows(last168Hours: readonly HourMetrics[]): HealthWindow[] {
  const day = last168Hours.slice(-24);
  return [
    { id: '24h', label: 'Last 24 hours', spanHours: 1, ...seriesOf(day, 1) },
    { id: '7d', label: 'Last 7 days', spanHours: 24, ...seriesOf(last168Hours, 24) },
  ];
}

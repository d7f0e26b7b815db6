import type { FC } from 'hono/jsx';
import { LATENCY_BOUNDS_MS } from '../../../core/storage/turn-metrics.js';
import { BASE } from '../dashboard-context.js';
import { DataTable } from '../pages/data-table.js';
import type { HealthWindow, SeriesPoint } from './metric-series.js';
import { ColumnChart, LineChart, type TimePoint } from './time-charts.js';

const OVER = LATENCY_BOUNDS_MS.at(-1) ?? 60_000;

/** A percentile as drawn: the overflow bucket at the last bound (the table says "over"). */
const drawn = (v: number | null) => (v === null ? null : Number.isFinite(v) ? v : OVER);
const said = (v: number | null) => (v === null ? '—' : Number.isFinite(v) ? `≤ ${v} ms` : `> ${OVER} ms`);

function labelOf(w: HealthWindow, p: SeriesPoint): string {
  // An hour by its start; a day (24 hours ending with the current one) by the date it ends on.
  if (w.spanHours >= 24) return new Date(p.lastHourMs).toISOString().slice(5, 10);
  return `${new Date(p.startMs).toISOString().slice(11, 13)}:00`;
}

const COLOURS = {
  p50: '#457b9d',
  p95: '#e76f51',
  pass: '#2a9d8f',
  veto: '#c1121f',
  escalate: '#e9c46a',
  error: '#6c757d',
  deferred: '#7b2cbf',
  failures: '#9b2226',
};

/**
 * Health's "look, not read" section: p50/p95 latency, decisions, deferred share and delivery
 * failures for one window (the last 24 h by hour, or the last 7 days by day), from the hourly
 * aggregate (core/storage/turn-metrics.ts). Times are UTC.
 */
export const HealthTrends: FC<{ windows: HealthWindow[]; shown: HealthWindow['id'] }> = ({ windows, shown }) => {
  const w = windows.find((x) => x.id === shown) ?? windows[0]!;
  const points = (values: (p: SeriesPoint) => (number | null)[]): TimePoint[] =>
    w.points.map((p) => ({ label: labelOf(w, p), values: values(p) }));
  const t = w.total;
  return (
    <section aria-labelledby="trends" class="trends">
      <h2 id="trends">Trends</h2>
      <nav aria-label="Window" class="actions">
        {windows.map((x) => (
          <a href={`${BASE}/health?window=${x.id}#trends`} aria-current={x.id === w.id ? 'page' : undefined}>
            {x.label}
          </a>
        ))}
      </nav>
      <p>
        {w.label} (UTC): <strong>{t.turns}</strong> turns — {t.pass} passed, {t.veto} vetoed, {t.escalate} escalated,{' '}
        {t.error} failed; p50 {said(t.p50)}, p95 {said(t.p95)}; deferred {(t.deferredShare * 100).toFixed(1)} %;{' '}
        <strong>{t.deliveryFailures}</strong> delivery failures.
      </p>
      <div class="charts">
        <section aria-labelledby="trend-latency">
          <h3 id="trend-latency">Latency</h3>
          <LineChart
            title={`Latency p50 and p95 (ms), ${w.label.toLowerCase()}`}
            series={[
              { name: 'p50', colour: COLOURS.p50 },
              { name: 'p95', colour: COLOURS.p95 },
            ]}
            unit="ms"
            points={points((p) => [drawn(p.p50), drawn(p.p95)])}
          />
        </section>
        <section aria-labelledby="trend-decisions">
          <h3 id="trend-decisions">Decisions</h3>
          <ColumnChart
            title={`Decisions, ${w.label.toLowerCase()}`}
            series={[
              { name: 'pass', colour: COLOURS.pass },
              { name: 'veto', colour: COLOURS.veto },
              { name: 'escalate', colour: COLOURS.escalate },
              { name: 'error', colour: COLOURS.error },
            ]}
            points={points((p) => [p.pass, p.veto, p.escalate, p.error])}
          />
        </section>
        <section aria-labelledby="trend-deferred">
          <h3 id="trend-deferred">Deferred share</h3>
          <LineChart
            title={`Deferred share, ${w.label.toLowerCase()}`}
            series={[{ name: 'deferred', colour: COLOURS.deferred }]}
            unit="%"
            max={1}
            points={points((p) => [p.turns ? p.deferredShare : null])}
          />
        </section>
        <section aria-labelledby="trend-failures">
          <h3 id="trend-failures">Delivery failures</h3>
          <ColumnChart
            title={`Delivery failures (dead or unknown), ${w.label.toLowerCase()}`}
            series={[{ name: 'failed', colour: COLOURS.failures }]}
            points={points((p) => [p.deliveryFailures])}
          />
        </section>
      </div>
      <details>
        <summary>The numbers</summary>
        <DataTable
          columns={[
            w.spanHours >= 24 ? 'Day to' : 'Hour',
            'Turns',
            'p50',
            'p95',
            'Pass',
            'Veto',
            'Escalate',
            'Error',
            'Deferred',
            'Failed',
          ]}
        >
          {w.points.map((p) => (
            <tr>
              <td>{labelOf(w, p)}</td>
              <td>{p.turns}</td>
              <td>{said(p.p50)}</td>
              <td>{said(p.p95)}</td>
              <td>{p.pass}</td>
              <td>{p.veto}</td>
              <td>{p.escalate}</td>
              <td>{p.error}</td>
              <td>{p.turns ? `${(p.deferredShare * 100).toFixed(1)} %` : '—'}</td>
              <td>{p.deliveryFailures}</td>
            </tr>
          ))}
        </DataTable>
      </details>
    </section>
  );
};

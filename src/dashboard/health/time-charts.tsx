import type { FC } from 'hono/jsx';

/**
 * Time-series charts as inline SVG drawn on the server: no script (the dashboard's CSP allows
 * none but its copy button) and no chart library — a few rects and a polyline are less code
 * than adapting one to server-rendered JSX in a Worker. Each chart has a title and a description
 * naming every value for screen readers, and `data-*` attributes on its marks so a test can read
 * what was drawn; the same numbers are in the table under the charts.
 */

export interface TimePoint {
  /** Axis label (already formatted: "14:00", "12-01"). */
  label: string;
  /** One value per series; null draws nothing (no data for that point). */
  values: (number | null)[];
}

export interface ChartSeries {
  name: string;
  colour: string;
}

// A narrow drawing so its text stays readable when the SVG is scaled to a phone's width.
const WIDTH = 480;
const HEIGHT = 210;
const LEFT = 72;
const RIGHT = 8;
const TOP = 26;
const BOTTOM = 22;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** A round axis maximum at or above `max` (1, 2 or 5 times a power of ten). */
export function niceMax(max: number): number {
  if (max <= 0 || !Number.isFinite(max)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const formatValue = (v: number, unit: string) =>
  unit === '%' ? `${(v * 100).toFixed(1)} %` : `${Number.isInteger(v) ? v : v.toFixed(1)}${unit ? ` ${unit}` : ''}`;

/** Which x labels to print: about six, so they never overlap at any width. */
const labelEvery = (n: number) => Math.max(1, Math.ceil(n / 5));

const Frame: FC<{
  title: string;
  series: ChartSeries[];
  points: TimePoint[];
  unit: string;
  axisMax: number;
  kind: 'columns' | 'lines';
  children?: unknown;
}> = ({ title, series, points, unit, axisMax, kind, children }) => {
  const id = slug(title);
  const desc = points
    .map(
      (p) =>
        `${p.label}: ${p.values.map((v, i) => `${series[i]!.name} ${v === null ? 'none' : formatValue(v, unit)}`).join(', ')}`,
    )
    .join('; ');
  const every = labelEvery(points.length);
  const step = PLOT_W / Math.max(1, points.length);
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width="100%"
      role="img"
      class={`chart ${kind}`}
      aria-labelledby={`${id}-t ${id}-d`}
      data-chart={id}
    >
      <title id={`${id}-t`}>{title}</title>
      <desc id={`${id}-d`}>{desc}</desc>
      {series.map((s, i) => (
        <>
          <rect x={LEFT + i * 95} y="4" width="12" height="12" fill={s.colour} />
          <text x={LEFT + 16 + i * 95} y="15">
            {s.name}
          </text>
        </>
      ))}
      {[0, 0.5, 1]
        // A count axis has whole numbers only (no "0.5 failures").
        .filter((f) => unit || Number.isInteger(axisMax * f))
        .map((f) => (
          <>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={TOP + PLOT_H * (1 - f)} y2={TOP + PLOT_H * (1 - f)} stroke="#ddd" />
            <text x={LEFT - 4} y={TOP + PLOT_H * (1 - f) + 4} text-anchor="end">
              {formatValue(axisMax * f, unit)}
            </text>
          </>
        ))}
      {points.map((p, i) =>
        (i % every === 0 && points.length - 1 - i >= every / 2) || i === points.length - 1 ? (
          // The newest label ends at the plot's edge, so it is never cut off.
          <text
            x={i === points.length - 1 ? WIDTH - RIGHT : LEFT + step * (i + 0.5)}
            y={HEIGHT - 6}
            text-anchor={i === points.length - 1 ? 'end' : 'middle'}
          >
            {p.label}
          </text>
        ) : null,
      )}
      {children}
    </svg>
  );
};

/** Stacked columns, one per point (turns by decision, delivery failures). */
export const ColumnChart: FC<{ title: string; series: ChartSeries[]; points: TimePoint[]; unit?: string }> = ({
  title,
  series,
  points,
  unit = '',
}) => {
  const axisMax = niceMax(Math.max(0, ...points.map((p) => p.values.reduce<number>((a, v) => a + (v ?? 0), 0))));
  const step = PLOT_W / Math.max(1, points.length);
  const barW = Math.max(2, step * 0.7);
  return (
    <Frame title={title} series={series} points={points} unit={unit} axisMax={axisMax} kind="columns">
      {points.map((p, i) => {
        let base = 0;
        return p.values.map((v, s) => {
          if (!v) return null;
          const h = (v / axisMax) * PLOT_H;
          const y = TOP + PLOT_H - ((base + v) / axisMax) * PLOT_H;
          base += v;
          return (
            <rect
              x={LEFT + step * i + (step - barW) / 2}
              y={y}
              width={barW}
              height={Math.max(1, h)}
              fill={series[s]!.colour}
              data-series={series[s]!.name}
              data-label={p.label}
              data-value={String(v)}
            >
              <title>{`${p.label} · ${series[s]!.name}: ${formatValue(v, unit)}`}</title>
            </rect>
          );
        });
      })}
    </Frame>
  );
};

/** One line per series with a dot at each point that has a value (latency percentiles, deferred share). */
export const LineChart: FC<{
  title: string;
  series: ChartSeries[];
  points: TimePoint[];
  unit: string;
  /** A fixed axis top (1 for a share); else a round number above the largest value. */
  max?: number;
}> = ({ title, series, points, unit, max }) => {
  const finite = points.flatMap((p) => p.values).filter((v): v is number => v !== null && Number.isFinite(v));
  const axisMax = max ?? niceMax(Math.max(0, ...finite));
  const step = PLOT_W / Math.max(1, points.length);
  const xy = (i: number, v: number) => [
    LEFT + step * (i + 0.5),
    TOP + PLOT_H - (Math.min(v, axisMax) / axisMax) * PLOT_H,
  ];
  return (
    <Frame title={title} series={series} points={points} unit={unit} axisMax={axisMax} kind="lines">
      {series.map((s, si) => {
        const marks = points.flatMap((p, i) => {
          const v = p.values[si];
          return v === null || v === undefined || !Number.isFinite(v) ? [] : [{ i, v, label: p.label }];
        });
        return (
          <g data-series={s.name}>
            {marks.length > 1 ? (
              <polyline
                fill="none"
                stroke={s.colour}
                stroke-width="2"
                points={marks.map((m) => xy(m.i, m.v).join(',')).join(' ')}
              />
            ) : null}
            {marks.map((m) => {
              const [x, y] = xy(m.i, m.v);
              return (
                <circle cx={x} cy={y} r="3.5" fill={s.colour} data-label={m.label} data-value={String(m.v)}>
                  <title>{`${m.label} · ${s.name}: ${formatValue(m.v, unit)}`}</title>
                </circle>
              );
            })}
          </g>
        );
      })}
    </Frame>
  );
};

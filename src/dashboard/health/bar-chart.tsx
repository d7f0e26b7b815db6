import type { FC } from 'hono/jsx';

export interface Bar {
  label: string;
  /** One value per series. */
  values: number[];
}

const COLOURS = ['#457b9d', '#e76f51', '#2a9d8f'];

/**
 * A small horizontal bar chart as inline SVG, drawn on the server (no script). It has a title and
 * a description for screen readers; the same numbers are in a table beside it.
 */
export const BarChart: FC<{ title: string; series: string[]; bars: Bar[]; unit: string }> = ({
  title,
  series,
  bars,
  unit,
}) => {
  const max = Math.max(1, ...bars.flatMap((b) => b.values));
  const rowHeight = 14 * series.length + 10;
  const left = 130;
  const width = 420;
  const plot = width - left - 60;
  const height = 30 + bars.length * rowHeight + 20;
  const id = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return (
    <svg viewBox={`0 0 ${width} ${height}`} width="100%" role="img" aria-labelledby={`${id}-t ${id}-d`}>
      <title id={`${id}-t`}>{title}</title>
      <desc id={`${id}-d`}>
        {bars.map((b) => `${b.label}: ${b.values.map((v, i) => `${series[i]} ${v} ${unit}`).join(', ')}`).join('; ')}
      </desc>
      {series.map((s, i) => (
        <>
          <rect x={left + i * 110} y="6" width="10" height="10" fill={COLOURS[i % COLOURS.length]} />
          <text x={left + 14 + i * 110} y="15">
            {s}
          </text>
        </>
      ))}
      {bars.map((b, row) => (
        <>
          <text x={left - 6} y={30 + row * rowHeight + rowHeight / 2} text-anchor="end">
            {b.label}
          </text>
          {b.values.map((v, i) => (
            <>
              <rect
                x={left}
                y={30 + row * rowHeight + i * 14}
                width={Math.max(v > 0 ? 1 : 0, (v / max) * plot)}
                height="12"
                fill={COLOURS[i % COLOURS.length]}
              />
              <text x={left + (v / max) * plot + 4} y={30 + row * rowHeight + i * 14 + 10}>
                {`${v}${unit ? ` ${unit}` : ''}`}
              </text>
            </>
          ))}
        </>
      ))}
    </svg>
  );
};

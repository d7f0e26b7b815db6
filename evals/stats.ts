/** Small statistics helpers for the eval report and the benchmark. */

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

export function fmtMs(v: number): string {
  return Number.isFinite(v) ? `${Math.round(v)}` : '–';
}

export function fmtRatio(v: number): string {
  return Number.isFinite(v) ? `${v.toFixed(2)}×` : '–';
}

export function fmtPct(part: number, whole: number): string {
  return whole ? `${((100 * part) / whole).toFixed(1)} %` : '–';
}

/** Left-aligned first column, right-aligned rest. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

import { vi } from 'vitest';
import { workerEnv } from '../support/workers-env.js';

/**
 * How the property tests run: one fixed seed (so a run is reproducible and a failure names the
 * seed to replay), a bounded number of runs per property (the whole suite stays within a few
 * minutes on 2 busy cores). `FUZZ_SEED=<n>` and `FUZZ_SCALE=<x>` in the environment of
 * `npx vitest run --project workers test/property` explore another seed or more runs; CI uses
 * the defaults.
 */
export const DEFAULT_FUZZ_SEED = 190_519;

function envNumber(name: string): number | undefined {
  const raw = workerEnv[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got ${JSON.stringify(raw)}`);
  return n;
}

export const FUZZ_SEED = envNumber('FUZZ_SEED') ?? DEFAULT_FUZZ_SEED;
const FUZZ_SCALE = envNumber('FUZZ_SCALE') ?? 1;

/** A property's whole run (all its cases), far above what it takes: a timeout is a hang, not slowness. */
export const PROPERTY_TIMEOUT_MS = 600_000;

/** fast-check parameters for a property: the fixed seed and `runs` × FUZZ_SCALE runs. */
export function fuzzParams(runs: number) {
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(runs * FUZZ_SCALE)) };
}

/**
 * Counts every response a property got, by status class and by status, and prints them with
 * the seed — the figures the README quotes. Shrinking runs (after a failure) are counted too.
 */
export class StatusTally {
  private readonly byStatus = new Map<number, number>();
  private readonly byLabel = new Map<string, number>();

  constructor(readonly name: string) {}

  record(status: number, label?: string): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    if (label) this.byLabel.set(label, (this.byLabel.get(label) ?? 0) + 1);
  }

  get total(): number {
    return [...this.byStatus.values()].reduce((a, b) => a + b, 0);
  }

  count(statusClass: 2 | 3 | 4 | 5): number {
    return [...this.byStatus].filter(([s]) => Math.floor(s / 100) === statusClass).reduce((a, [, n]) => a + n, 0);
  }

  summary(): string {
    const classes = ([2, 4, 5] as const).map((k) => `${k}xx=${this.count(k)}`).join(' ');
    const statuses = [...this.byStatus]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}:${n}`)
      .join(' ');
    const labels = [...this.byLabel]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([l, n]) => `${l}:${n}`)
      .join(' ');
    return `fuzz ${this.name}: seed=${FUZZ_SEED} requests=${this.total} ${classes} (${statuses})${labels ? ` [${labels}]` : ''}`;
  }

  print(): void {
    console.log(this.summary());
  }
}

/**
 * Mutes the product's routine console.log / console.warn lines (one per refused tenant lookup,
 * per delivery…: hundreds in a fuzz run); console.error, where failures speak, stays. Returns
 * the undo, to call before printing the tally.
 */
export function quietRoutineLogs(): () => void {
  const spies = [
    vi.spyOn(console, 'log').mockImplementation(() => {}),
    vi.spyOn(console, 'warn').mockImplementation(() => {}),
  ];
  return () => spies.forEach((s) => s.mockRestore());
}

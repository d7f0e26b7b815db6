/**
 * `npm run faults` — the fault matrix: the whole local stack (wrangler dev, a redis-server of its
 * own, the Upstash bridge, the QStash broker, the ManyChat and model sandboxes), real webhooks,
 * and one fault per row. Prints a table (also written to .local/faults/fault-matrix.md): what
 * the webhook answered, what was performed, unknown, dead, lost or duplicated.
 *
 *   npm run faults -- [--filter TEXT] [--concurrency N] [--long-outage-seconds N] [--verbose]
 *
 * `--long-outage-seconds` shortens the ten-minute Redis outage row (long-outage-rows.ts) for a
 * quick check of the row itself; the matrix is quoted at its default, 600.
 *
 * Exit status: 0 every row as expected; 1 a row lost or duplicated something, or did not do
 * what the delivery promises; 2 bad usage.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../../dev/stack.js';
import { duplicateRows } from './duplicate-rows.js';
import { startFaultEnvironment, type FaultEnvironment } from './environment.js';
import { manyChatRows } from './manychat-rows.js';
import { outageRows } from './outage-rows.js';
import { messengerRows } from './messenger-rows.js';
import { lateAnswerRows } from './late-answer-rows.js';
import { LONG_OUTAGE_DEFAULT_SECONDS, longOutageRow } from './long-outage-rows.js';
import { renderTable } from './report.js';
import { summarizeAnswers, verdict, type Row, type RowResult } from './row.js';

const allRows = (longOutageSeconds: number): Row[] => [
  ...outageRows,
  longOutageRow(longOutageSeconds),
  ...duplicateRows,
  ...manyChatRows,
  ...messengerRows,
  ...lateAnswerRows,
];
const USAGE = 'usage: npm run faults -- [--filter TEXT] [--concurrency N] [--long-outage-seconds N] [--verbose]';

async function runRow(env: FaultEnvironment, row: Row): Promise<RowResult> {
  const started = performance.now();
  try {
    const { messages, outcome, notes = [] } = await row.run(env);
    return {
      name: row.name,
      webhook: summarizeAnswers(messages),
      expected: row.expected,
      outcome,
      ok: verdict(row.expected, outcome, messages),
      seconds: (performance.now() - started) / 1000,
      notes: [...notes, ...outcome.details],
    };
  } catch (err) {
    return {
      name: row.name,
      webhook: '—',
      expected: row.expected,
      outcome: null,
      ok: false,
      seconds: (performance.now() - started) / 1000,
      notes: [`row failed to run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`],
    };
  }
}

/** Exclusive rows one at a time, then the others `concurrency` at a time; results in table order. */
async function runAll(
  env: FaultEnvironment,
  rows: Row[],
  concurrency: number,
  onDone: (r: RowResult) => void,
): Promise<RowResult[]> {
  const results = new Map<Row, RowResult>();
  for (const row of rows.filter((r) => r.exclusive)) {
    const result = await runRow(env, row);
    results.set(row, result);
    onDone(result);
  }
  const shared = rows.filter((r) => !r.exclusive);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, shared.length) }, async () => {
      while (next < shared.length) {
        const row = shared[next++]!;
        const result = await runRow(env, row);
        results.set(row, result);
        onDone(result);
      }
    }),
  );
  return rows.map((r) => results.get(r)!);
}

async function main() {
  let args;
  try {
    args = parseArgs({
      options: {
        filter: { type: 'string' },
        concurrency: { type: 'string' },
        'long-outage-seconds': { type: 'string' },
        verbose: { type: 'boolean' },
      },
    });
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
  const concurrency = Number(args.values.concurrency ?? 5);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    console.error('--concurrency must be an integer ≥ 1');
    process.exit(2);
  }
  const longOutageSeconds = Number(args.values['long-outage-seconds'] ?? LONG_OUTAGE_DEFAULT_SECONDS);
  if (!Number.isInteger(longOutageSeconds) || longOutageSeconds < 1) {
    console.error(`--long-outage-seconds must be an integer ≥ 1\n${USAGE}`);
    process.exit(2);
  }
  const filter = args.values.filter?.toLowerCase();
  const rows = allRows(longOutageSeconds).filter((r) => !filter || r.name.toLowerCase().includes(filter));
  if (!rows.length) {
    console.error(`--filter "${args.values.filter}" matches no row`);
    process.exit(2);
  }
  const started = performance.now();
  console.log(`fault matrix: ${rows.length} rows; starting the local stack…`);
  const env = await startFaultEnvironment(args.values.verbose ? (l) => console.log(l) : undefined);
  let results: RowResult[];
  try {
    console.log(
      `stack up in ${((performance.now() - started) / 1000).toFixed(0)} s (Worker ${env.workerUrl}, Redis ${env.redis.url})`,
    );
    results = await runAll(env, rows, concurrency, (r) =>
      console.log(
        `  ${r.ok ? '✓' : '✗'} ${r.name} (${r.seconds.toFixed(0)} s)${r.ok ? '' : `\n      ${r.notes.join('\n      ')}`}`,
      ),
    );
  } finally {
    await env.close();
  }
  const table = renderTable(results, (performance.now() - started) / 1000, env.workerErrors);
  console.log(`\n${table}`);
  const out = join(ROOT, '.local', 'faults', 'fault-matrix.md');
  await mkdir(join(ROOT, '.local', 'faults'), { recursive: true });
  await writeFile(out, table);
  console.log(`written to ${out}`);
  const failed = results.filter((r) => !r.ok);
  if (failed.length) console.log(`\n${failed.length} row(s) not as expected: ${failed.map((r) => r.name).join('; ')}`);
  process.exit(failed.length ? 1 : 0);
}

await main();

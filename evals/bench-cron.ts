/**
 * `npm run bench:cron` — what one cron minute costs, by the number of tenants: Redis commands
 * (Redis's own INFO commandstats, inner script commands included) and wall time, for the cron as
 * it runs (the due-work index) against the per-tenant scan it replaced (the three sweeps over
 * every tenant in the tenant index: the baseline, run in the same process on the same Redis).
 *
 *   npm run bench:cron [-- --tenants 10,1000,10000 --due 10 --runs 5]
 *
 * "idle": no tenant has due work. "busy": `--due` tenants each have one outbox entry past its
 * sweep time (written through the product's own commit-notice writer), the rest idle.
 * A private redis-server; loopback only; the publishers record instead of calling QStash.
 */
import { parseArgs } from 'node:util';
import type { OutboxEntry } from '../core/outbox-entry.js';
import { OUTBOX_SWEEP_AFTER_MS } from '../core/storage/due-index.js';
import { TENANT_INDEX_KEY } from '../core/storage/keys.js';
import { commitNoticeEntry } from '../outbox/commit-notice.js';
import { sweepOutbox } from '../outbox/sweeper.js';
import { finishStrandedTurns } from '../outbox/stranded-turns.js';
import { dueApprovalsByTenant } from '../src/approvals/decide-approval.js';
import { startCronHarness, type CronHarness } from './cron-harness.js';
import { percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    tenants: { type: 'string', default: '10,1000,10000' },
    due: { type: 'string', default: '10' },
    runs: { type: 'string', default: '5' },
  },
});
const SIZES = values.tenants.split(',').map(Number);
const DUE = Number(values.due);
const RUNS = Number(values.runs);

/** The cron before the index: every tenant's three queues, each sweep one pipeline over all of them. */
async function scanEveryTenant(h: CronHarness, now: Date): Promise<void> {
  const tenantIds = (await h.session.one((r) => r.smembers(TENANT_INDEX_KEY))).filter(
    (t): t is string => typeof t === 'string',
  );
  const publisher = { publish: async () => {} };
  await sweepOutbox({ session: h.session, publisher, now, tenantIds });
  await finishStrandedTurns({ session: h.session, turnJobs: { publishFinishTurn: async () => {} }, tenantIds, now });
  await dueApprovalsByTenant(h.session, tenantIds, now);
}

/** RUNS runs of `run`, each after its own `setup` (not measured): Redis's command count and wall time. */
async function measure(
  h: CronHarness,
  run: (now: Date) => Promise<void>,
  setup: (now: Date) => Promise<void> = async () => {},
  next: () => Date,
): Promise<{ commands: number; ms: number }[]> {
  const out: { commands: number; ms: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const now = next();
    await setup(now);
    await h.commandsSince();
    const started = performance.now();
    await run(now);
    const ms = performance.now() - started;
    out.push({ commands: (await h.commandsSince()).total, ms });
  }
  return out;
}

function summary(rows: { commands: number; ms: number }[]): string {
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  const commands = rows.map((r) => r.commands).sort((a, b) => a - b);
  return `${String(percentile(commands, 50)).padStart(8)}  ${percentile(ms, 50).toFixed(1).padStart(8)}  ${percentile(ms, 95).toFixed(1).padStart(8)}`;
}

// The cron logs its counts per run; the table is what this prints.
const print = console.log.bind(console);
console.log = () => {};

async function main() {
  print(
    `bench:cron: ${RUNS} runs per row; commands = Redis's own count (median); ms = wall time of the cron's Redis work (p50, p95)\n`,
  );
  print('tenants  state  cron                     commands    p50 ms    p95 ms');
  print('-------  -----  -----------------------  --------  --------  --------');
  for (const size of SIZES) {
    const h = await startCronHarness();
    try {
      const ids = Array.from({ length: size }, (_, i) => `bench${i}`);
      for (let i = 0; i < ids.length; i += 1000) await h.raw.sadd(TENANT_INDEX_KEY, ...ids.slice(i, i + 1000));
      const t0 = Date.parse('2030-01-01T00:00:00.000Z');
      await h.runCron(new Date(t0)); // seeds the index (once)
      let minute = 1;
      const next = () => new Date(t0 + minute++ * 60_000);
      const cron = (now: Date) => h.runCron(now);
      const scan = (now: Date) => scanEveryTenant(h, now);
      const idle = await measure(h, cron, undefined, next);
      const idleScan = await measure(h, scan, undefined, next);
      print(`${String(size).padStart(7)}  idle   due-work index           ${summary(idle)}`);
      print(`${String(size).padStart(7)}  idle   every tenant (before)    ${summary(idleScan)}`);
      // Busy: DUE tenants with an entry past its sweep time, written before each run (a sweep republishes and re-dates them).
      const dueWork = async (now: Date) => {
        const created = new Date(now.getTime() - OUTBOX_SWEEP_AFTER_MS - 1_000);
        for (let i = 0; i < Math.min(DUE, size); i++) {
          const entry: OutboxEntry = {
            turnId: `turn_${minute}_${i}`,
            tenantId: ids[i]!,
            channel: 'manychat',
            contactId: '4242',
            actions: [],
            state: 'pending',
            createdAt: created.toISOString(),
            attempts: 0,
          };
          await commitNoticeEntry(h.session, entry);
        }
      };
      const busy = await measure(h, cron, dueWork, next);
      const busyScan = await measure(h, scan, dueWork, next);
      print(`${String(size).padStart(7)}  ${DUE} due  due-work index           ${summary(busy)}`);
      print(`${String(size).padStart(7)}  ${DUE} due  every tenant (before)    ${summary(busyScan)}`);
    } finally {
      await h.close();
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * `npm run bench:outbox` — commit + delivery through the local stack: entries committed with the
 * product's own `writeTurnCommit` (one MULTI) and `publishCommitted` (QStash broker), delivered by the
 * Worker under wrangler dev to the ManyChat sandbox. Reports throughput (entries performed per
 * second) and commit-to-performed latency p50/p95, measured on this machine in this run.
 * Loopback only; bounded by ENTRIES and CONCURRENCY.
 */
import { join } from 'node:path';
import { DEMO_PAGE_ID } from '../dev/demo-tenant.js';
import { freePort } from '../dev/redis-server.js';
import { DEV_UPSTASH_TOKEN, ROOT, seedDemoTenant, startLocalStack } from '../dev/stack.js';
import type { TurnRecord } from '../core/turn-record.js';
import { RedisSession } from '../core/storage/redis-session.js';
import { writeTurnCommit, publishCommitted } from '../outbox/commit.js';
import type { OutboxEntry } from '../core/outbox-entry.js';
import { qstashPublisher } from '../outbox/publisher.js';
import { percentile } from './stats.js';

const ENTRIES = Number(process.env.ENTRIES ?? 200);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 10);
const FLOW_NS = 'content20250101000000_000001';

async function main() {
  process.env.REDIS_URL ??= `redis://127.0.0.1:${await freePort()}`;
  const stack = await startLocalStack({
    withWorker: true,
    manychatRateLimits: false,
    qstashRetryBaseMs: 200,
    stateDir: join(ROOT, '.local', 'bench-outbox'),
  });
  try {
    const tenantId = `bench${Date.now().toString(36)}`;
    await seedDemoTenant(stack.upstash.url, DEV_UPSTASH_TOKEN, tenantId);
    const publisher = qstashPublisher({
      qstashUrl: stack.qstash.url,
      qstashToken: stack.facts.qstash.token,
      publicUrl: stack.facts.workerUrl!,
    });
    const committedAt = new Map<string, number>();
    const contacts: string[] = [];
    for (let i = 0; i < ENTRIES; i++) {
      const id = String(2_000_000_000 + i);
      stack.manychat.addSubscriber({ pageId: DEMO_PAGE_ID, id });
      contacts.push(id);
    }
    const commitMs: number[] = [];
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      const session = RedisSession.connect(stack.upstash.url, DEV_UPSTASH_TOKEN);
      while (next < ENTRIES) {
        const i = next++;
        const contactId = contacts[i]!;
        const turnId = `turn_bench_${i}`;
        const now = new Date();
        const entry: OutboxEntry = {
          turnId,
          tenantId,
          channel: 'manychat',
          contactId,
          state: 'pending',
          createdAt: now.toISOString(),
          attempts: 0,
          actions: [
            {
              id: `${turnId}.a1`,
              tool: 'send_media',
              kind: 'send_flow',
              args: { flowNs: FLOW_NS, flowName: 'brochure' },
              effect: 'write',
              idempotent: false,
              gate: 'none',
              summary: 'bench',
            },
          ],
        };
        // Only the fields the commit writes matter here; the rest of a record is the turn's business.
        const record = { turnId, tenantId, contactId, startedAt: now.toISOString() } as TurnRecord;
        const t0 = performance.now();
        committedAt.set(contactId, Date.now());
        await writeTurnCommit(session, {
          record,
          entry,
          history: [],
          historyLimit: 10,
          handoffUntil: null,
          pinned: [],
        });
        await publishCommitted(publisher, entry);
        commitMs.push(performance.now() - t0);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const deadline = Date.now() + 120_000;
    let performed = stack.manychat.calls().filter((c) => c.path === '/fb/sending/sendFlow' && c.outcome === 'ok');
    while (performed.length < ENTRIES && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      performed = stack.manychat.calls().filter((c) => c.path === '/fb/sending/sendFlow' && c.outcome === 'ok');
    }
    const elapsedS = (performance.now() - started) / 1000;
    const latencies = performed
      .map(
        (c) => Date.parse(c.at) - (committedAt.get(String((c.body as { subscriber_id: number }).subscriber_id)) ?? NaN),
      )
      .filter(Number.isFinite);
    const perContact = new Map<string, number>();
    for (const c of performed)
      perContact.set(
        String((c.body as { subscriber_id: number }).subscriber_id),
        (perContact.get(String((c.body as { subscriber_id: number }).subscriber_id)) ?? 0) + 1,
      );
    const duplicates = [...perContact.values()].filter((n) => n > 1).length;
    console.log(
      `outbox bench: ${ENTRIES} entries, ${CONCURRENCY} committing concurrently, ManyChat sandbox rate limits off`,
    );
    console.log(
      `  performed            ${performed.length}/${ENTRIES} (contacts performed more than once: ${duplicates})`,
    );
    console.log(
      `  throughput           ${(performed.length / elapsedS).toFixed(1)} entries/s (first commit to last performed: ${elapsedS.toFixed(2)} s)`,
    );
    console.log(
      `  commit+publish       p50 ${percentile(commitMs, 50).toFixed(1)} ms, p95 ${percentile(commitMs, 95).toFixed(1)} ms`,
    );
    console.log(
      `  commit → performed   p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms`,
    );
    if (performed.length < ENTRIES || duplicates) process.exitCode = 1;
  } finally {
    await stack.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

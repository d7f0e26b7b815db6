import { spawn, type ChildProcess } from 'node:child_process';
import IORedis from 'ioredis';
import { freePort, pingRedis } from '../dev/redis-server.js';
import { startUpstashRedisRest, type RunningServer } from '../dev/upstash-redis-rest.js';
import type { DeliveryMessage } from '../core/outbox-entry.js';
import type { FinishTurnJob } from '../core/finish-turn-job.js';
import { RedisSession } from '../core/storage/redis-session.js';
import type { Services } from '../src/http/app-context.js';
import { runScheduledWork } from '../src/scheduled.js';

/**
 * The cron on a Redis of its own, with Redis's own count of the commands it ran: for the due-work
 * index's test and the idle-cron benchmark. A private redis-server (never the shared one: other
 * files' tenants and commands would be counted), the Upstash REST bridge in front of it, the real
 * `@upstash/redis` client and `runScheduledWork` with recording publishers (QStash is not what is
 * measured here).
 */
export interface CronHarness {
  session: RedisSession;
  /** Every command Redis ran since the last call (INFO commandstats), by command. */
  commandsSince(): Promise<{ total: number; byCommand: Record<string, number> }>;
  runCron(now: Date): Promise<void>;
  published: DeliveryMessage[];
  finishJobs: FinishTurnJob[];
  raw: IORedis;
  close(): Promise<void>;
}

const TOKEN = 'cron-harness-token';

async function startPrivateRedis(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const deadline = Date.now() + 10_000;
  while (!(await pingRedis('127.0.0.1', port, 200))) {
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, child };
}

function parseCommandStats(info: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of info.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) counts[m[1]!] = Number(m[2]);
  }
  return counts;
}

export async function startCronHarness(): Promise<CronHarness> {
  const redis = await startPrivateRedis();
  let rest: RunningServer | undefined;
  const raw = new IORedis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    rest = await startUpstashRedisRest({ redisUrl: redis.url, token: TOKEN });
    await raw.connect();
  } catch (err) {
    redis.child.kill();
    throw err;
  }
  const published: DeliveryMessage[] = [];
  const finishJobs: FinishTurnJob[] = [];
  const session = RedisSession.connect(rest.url, TOKEN, 10_000);
  // Only what runScheduledWork uses: Redis, the two publishers and the pinning secret.
  const services = {
    env: { SESSION_SECRET: 'cron-harness-session-secret-000000000000' },
    redis: () => session,
    publisher: () => ({ publish: async (m: DeliveryMessage) => void published.push(m) }),
    turnJobs: () => ({ publishFinishTurn: async (job: FinishTurnJob) => void finishJobs.push(job) }),
  } as unknown as Services;
  let last = parseCommandStats(await raw.info('commandstats'));
  return {
    session,
    raw,
    published,
    finishJobs,
    async commandsSince() {
      const now = parseCommandStats(await raw.info('commandstats'));
      const byCommand: Record<string, number> = {};
      let total = 0;
      for (const [cmd, calls] of Object.entries(now)) {
        // The INFO calls of this harness itself are not the cron's.
        const delta = calls - (last[cmd] ?? 0) - (cmd === 'info' ? 1 : 0);
        if (delta > 0) {
          byCommand[cmd] = delta;
          total += delta;
        }
      }
      last = now;
      return { total, byCommand };
    },
    async runCron(now: Date) {
      await runScheduledWork(services, now);
    },
    async close() {
      raw.disconnect();
      await rest?.close();
      redis.child.kill();
    },
  };
}

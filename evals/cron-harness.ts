import IORedis from 'ioredis';
import { ensureRedis, freePort } from '../dev/redis-server.js';
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

function parseCommandStats(info: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of info.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) counts[m[1]!] = Number(m[2]);
  }
  return counts;
}

export async function startCronHarness(): Promise<CronHarness> {
  // A port nothing answers on: ensureRedis then starts a redis-server of its own on a free port.
  const redis = await ensureRedis(`redis://127.0.0.1:${await freePort()}`);
  let rest: RunningServer | undefined;
  const raw = new IORedis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    rest = await startUpstashRedisRest({ redisUrl: redis.url, token: TOKEN });
    await raw.connect();
  } catch (err) {
    await redis.close();
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
      await redis.close();
    },
  };
}

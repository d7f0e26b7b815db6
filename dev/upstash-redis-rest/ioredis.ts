import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';

// ioredis is CommonJS; loading it through require keeps its named exports intact under every
// loader (Vite's module runner, which runs the test global setup, drops them on an ESM import).
const ioredis = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
export const { Command } = ioredis;
export type Redis = RedisClient;

export function newRedis(url: string): Redis {
  // RESP2 because Upstash's JSON mirrors RESP2 shapes (ioredis 6 defaults to RESP3); few retries so a
  // dead Redis turns into a prompt 500 instead of a hung request. Reconnect attempts stay 250 ms apart
  // (ioredis backs off to 2 s): hosted Upstash has no reconnect gap, so once Redis is back the bridge
  // should answer again at once rather than fail requests for seconds after the outage ended.
  const redis = new ioredis.Redis(url, {
    protocol: 2,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: (times: number) => Math.min(times * 50, 250),
    connectionName: 'upstash-redis-rest',
  });
  // Failures surface on the commands themselves; without a listener ioredis logs every reconnect attempt.
  redis.on('error', () => {});
  return redis;
}

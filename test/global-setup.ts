import type { TestProject } from 'vitest/node';
import { ensureRedis, RedisUnavailableError } from '../dev/redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** Starts (or finds) the real Redis every storage test needs; fails loudly, never skips. */
export default async function setup(project: TestProject) {
  let redis;
  try {
    redis = await ensureRedis();
  } catch (err) {
    const why = err instanceof RedisUnavailableError ? err.message : String(err);
    throw new Error(`Tests need a Redis server and none could be found or started: ${why}`);
  }
  project.provide('redisUrl', redis.url);
  return async () => {
    await redis.close();
  };
}

import type { TestProject } from 'vitest/node';
import { RedisUnavailableError } from '../dev/redis-server.js';
import { startLocalStack } from '../dev/stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    upstashUrl: string;
    upstashToken: string;
    qstashUrl: string;
    manychatUrl: string;
    /** The environment the Worker runs with against this stack (workerd tests bind it). */
    workerEnv: Record<string, string>;
  }
}

/**
 * Starts (or finds) a real Redis and the local stand-ins every storage and delivery test needs.
 * Fails loudly, never skips, when Redis cannot be had.
 */
export default async function setup(project: TestProject) {
  let stack;
  try {
    stack = await startLocalStack({ withWorker: false, stateDir: '.local/test' });
  } catch (err) {
    const why = err instanceof RedisUnavailableError ? err.message : String(err);
    throw new Error(`Tests need a Redis server and the local stand-ins, and they could not be started: ${why}`);
  }
  project.provide('redisUrl', stack.redis.url);
  project.provide('upstashUrl', stack.upstash.url);
  project.provide('upstashToken', stack.facts.upstash.token);
  project.provide('qstashUrl', stack.qstash.url);
  project.provide('manychatUrl', stack.manychat.url);
  project.provide('workerEnv', stack.workerEnv);
  return async () => {
    await stack.close();
  };
}

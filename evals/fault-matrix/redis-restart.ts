import type { FaultEnvironment } from './environment.js';
import { sleep } from './world.js';

/**
 * Starts the row's redis-server again and waits until the Upstash bridge answers through it: the
 * server answering PING is not enough, the bridge's client reconnects on its own schedule, and a
 * row that reads its records in that gap would report the harness's timeout as the product's fault.
 */
export async function restartRedis(env: FaultEnvironment, timeoutMs = 30_000): Promise<void> {
  await env.redis.start();
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      if ((await env.session.one((r) => r.ping())) === 'PONG') return;
    } catch (err) {
      last = err;
    }
    await sleep(200);
  }
  throw new Error(`the Upstash bridge did not reach the restarted Redis within ${timeoutMs} ms: ${String(last)}`);
}

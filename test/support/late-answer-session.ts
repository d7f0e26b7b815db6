import type { Redis } from '@upstash/redis/cloudflare';
import { RedisSession } from '../../core/storage/redis-session.js';
import { session } from './workers-env.js';

/**
 * A session whose next script (EVAL) runs on Redis but whose answer the caller never sees in time:
 * - `late`: the script executes, then the request fails as a timeout would (the answer came after
 *   the client's 2 s abort);
 * - `dropped`: the script executes, its answer is lost, and the client's own retry runs it again
 *   and returns the second answer (what @upstash/redis's one retry of a network error does).
 */
export class LateAnswerSession extends RedisSession {
  constructor(
    private fault: 'late' | 'dropped' | null,
    redis: Redis = session().redis,
  ) {
    super(redis);
  }

  override async one<T>(run: (r: Redis) => Promise<T>): Promise<T> {
    let evaluated = false;
    const spy = new Proxy(this.redis, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop, target) as unknown;
        if (prop === 'eval') evaluated = true;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    this.roundTrips++;
    const result = await run(spy);
    if (!evaluated || !this.fault) return result;
    const fault = this.fault;
    this.fault = null;
    if (fault === 'late') throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    return run(this.redis);
  }
}

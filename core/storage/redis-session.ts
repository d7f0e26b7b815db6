import { Redis } from '@upstash/redis/cloudflare';

/** Per Redis request: far above a healthy round trip, far below ManyChat's 10 s. */
export const REDIS_TIMEOUT_MS = 2000;

/**
 * A Redis client for one request that counts HTTP round trips, so the turn record can say how
 * many it took. Auto-pipelining is off: every round trip is an explicit `pipeline()`/`multi()`
 * or single command, which is what makes the count exact. Values are stored as JSON strings and
 * parsed by the caller with zod (automatic deserialisation would turn "123" into a number).
 */
export class RedisSession {
  roundTrips = 0;
  constructor(readonly redis: Redis) {}

  /**
   * Fails fast: one retry of a network error (the client's default is five, with backoff that
   * took a webhook past ManyChat's 10 s when Redis was down) and a timeout on every request, so
   * an outage is known in time to keep the message another way (see src/http/middleware/tenant.ts).
   *
   * A new client per request, on purpose: the client keeps its auto-pipelining executor (which
   * guardrails/rate-limit.ts uses, and counts) on itself, so a client shared by an isolate's
   * concurrent requests batches their commands together, miscounts the round trips, and settles
   * one request's promises from another's I/O, which Workers forbid.
   */
  static connect(url: string, token: string, timeoutMs = REDIS_TIMEOUT_MS): RedisSession {
    return new RedisSession(
      new Redis({
        url,
        token,
        enableAutoPipelining: false,
        automaticDeserialization: false,
        enableTelemetry: false,
        readYourWrites: false,
        // Plain JSON answers: every value we store is a JSON or decimal string (valid UTF-8), so the
        // default base64 encoding only costs a per-byte JS decode of every string in every answer.
        responseEncoding: false,
        retry: { retries: 1, backoff: () => 50 },
        signal: () => AbortSignal.timeout(timeoutMs),
      }),
    );
  }

  /** One round trip: the commands `build` queues, not atomic. */
  async pipeline(build: (p: ReturnType<Redis['pipeline']>) => void): Promise<unknown[]> {
    const p = this.redis.pipeline();
    build(p);
    this.roundTrips++;
    return p.exec();
  }

  /** One round trip: the commands `build` queues, atomically (MULTI/EXEC). */
  async multi(build: (m: ReturnType<Redis['multi']>) => void): Promise<unknown[]> {
    const m = this.redis.multi();
    build(m);
    this.roundTrips++;
    return m.exec();
  }

  /** One round trip for a single command. */
  async one<T>(run: (r: Redis) => Promise<T>): Promise<T> {
    this.roundTrips++;
    return run(this.redis);
  }
}

export function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

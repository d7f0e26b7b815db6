import { blockingTimeout, refusal, type Cmd } from './command-policy.js';
import type { ConnectionPool } from './connection-pool.js';
import { HttpError, isRedisError } from './http-error.js';
import { Command, type Redis } from './ioredis.js';
import { encode, type Item } from './reply-encoding.js';
import { explainRedisError } from './redis-version.js';

export interface Backend {
  shared: Redis;
  pool: ConnectionPool;
  /** The local Redis's version, to say so when a command is unknown because Redis is too old. */
  redisVersion: string;
}

/**
 * ioredis rewrites the replies of a few commands looked up by their lower-case name (HGETALL becomes an
 * object). Upper-casing exactly those names bypasses that, since Redis is case-insensitive, while
 * every other command keeps the caller's spelling so Redis's error text (e.g. unknown command 'x')
 * stays faithful. If the internal table ever moves, upper-case everything rather than risk rewrites.
 */
const replyTransformers = (Command as unknown as { _transformer?: { reply?: Record<string, unknown> } })._transformer
  ?.reply;
function ioredisName(name: string): string {
  return !replyTransformers || name.toLowerCase() in replyTransformers ? name.toUpperCase() : name;
}

function call(redis: Redis, [name, ...args]: Cmd): Promise<unknown> {
  return redis.callBuffer(ioredisName(name), ...args);
}

/** A blocking command would stall every request behind it on the shared socket, so it borrows one. */
export function runOne(backend: Backend, cmd: Cmd): Promise<unknown> {
  if (blockingTimeout(cmd) !== undefined) return backend.pool.use((r) => call(r, cmd));
  return call(backend.shared, cmd);
}

/** Refused commands get their own `{error}` so an auto-pipelined batch does not fail as a whole. */
export async function runPipeline(backend: Backend, cmds: Cmd[], base64: boolean): Promise<Item[]> {
  const refusals = cmds.map((cmd) => refusal(cmd, false));
  const runnable = cmds.filter((_, i) => refusals[i] === undefined);
  const exec = async (redis: Redis) => {
    const pipeline = redis.pipeline();
    for (const [name, ...args] of runnable) pipeline.callBuffer(ioredisName(name), ...args);
    return (await pipeline.exec()) ?? [];
  };
  const results =
    runnable.length === 0
      ? []
      : runnable.some((c) => blockingTimeout(c) !== undefined)
        ? await backend.pool.use(exec)
        : await exec(backend.shared);
  let next = 0;
  return refusals.map((why) => {
    if (why !== undefined) return { error: why };
    const [err, reply] = results[next++] ?? [new Error('ERR no reply from Redis'), null];
    return err ? { error: explainRedisError(err.message, backend.redisVersion) } : { result: encode(reply, base64) };
  });
}

/**
 * MULTI..EXEC on one exclusively borrowed connection, so commands of concurrent requests cannot
 * land inside the transaction. Queue-time failures (EXECABORT) discard everything → 400; runtime
 * errors of single commands are per-item, as in Redis.
 */
export async function runTransaction(backend: Backend, cmds: Cmd[], base64: boolean): Promise<Item[]> {
  for (const cmd of cmds) {
    const why = refusal(cmd, true);
    if (why) throw new HttpError(400, `${why} (transaction discarded)`);
  }
  return backend.pool.use(async (redis) => {
    const multi = redis.multi();
    for (const [name, ...args] of cmds) multi.callBuffer(ioredisName(name), ...args);
    let results: [Error | null, unknown][];
    try {
      results = (await multi.exec()) ?? [];
    } catch (err) {
      if (!isRedisError(err)) throw err;
      // ioredis attaches the queue-time errors that caused EXECABORT; they say what was wrong.
      const causes = ((err as Error & { previousErrors?: Error[] }).previousErrors ?? []).map((e) =>
        explainRedisError(e.message, backend.redisVersion),
      );
      throw new HttpError(400, [err.message, ...causes].join(' '));
    }
    return results.map(([err, reply]) =>
      err ? { error: explainRedisError(err.message, backend.redisVersion) } : { result: encode(reply, base64) },
    );
  });
}

import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { ConnectionPool } from './upstash-redis-rest/connection-pool.js';
import type { Backend } from './upstash-redis-rest/execute.js';
import { errorText, HttpError } from './upstash-redis-rest/http-error.js';
import { handle, onClientError, sendJson, type BridgeUsage, type LateAnswerRule } from './upstash-redis-rest/http.js';
import { newRedis } from './upstash-redis-rest/ioredis.js';
import { readRedisVersion } from './upstash-redis-rest/redis-version.js';
import { sha256 } from './upstash-redis-rest/request.js';
import { SyncTokens } from './upstash-redis-rest/sync-token.js';

export { MAX_BODY_BYTES } from './upstash-redis-rest/request.js';

/**
 * Dev stand-in for the Upstash Redis REST API over a real Redis, so the unchanged `@upstash/redis`
 * client works offline. Wire facts: docs/protocols.md (Upstash Redis REST).
 *
 * Routes: POST `/` (one command, flat JSON array), POST `/pipeline` and POST `/multi-exec` (2-D arrays);
 * dev only: GET `/__dev/usage` (requests and commands so far, counted as Upstash bills them).
 * Every answer is JSON; successful ones carry an `upstash-sync-token` header (read-your-writes, sync-token.ts).
 * Upstash's own answers where Redis differs: `COPY k k`, `SCAN … WITHTYPE`, the Lua flag
 * `allow-key-locking` (upstash-extensions.ts, script-flags.ts). A command unknown only because the
 * local Redis is too old gets an error saying which version it needs (redis-version.ts).
 * Not implemented (the client never uses them): path-style commands (`/set/k/v`), `?_token=`,
 * SSE subscribe, `Upstash-Response-Format: resp2`.
 *
 * Modules: request parsing and auth (`request.ts`), which commands are refused (`command-policy.ts`),
 * running them on the shared connection or a borrowed one (`execute.ts`, `connection-pool.ts`),
 * RESP → JSON (`reply-encoding.ts`), routing (`http.ts`).
 */

export interface UpstashRedisRestOptions {
  redisUrl: string;
  token: string;
  /** 0 = ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningServer {
  /** http://HOST:PORT, usable as the client's `url`. */
  url: string;
  port: number;
  /** `redis_version` of the Redis behind the bridge, e.g. "7.0.15". */
  redisVersion: string;
  /** Dev-only fault hook: the next `count` requests whose body holds every string run now, answered `delayMs` later. */
  answerLate(rule: { contains: string[]; delayMs: number; count?: number }): void;
  close(): Promise<void>;
}

/** Dedicated connections for transactions and blocking commands (each borrowed exclusively). */
const POOL_SIZE = 8;

export async function startUpstashRedisRest(opts: UpstashRedisRestOptions): Promise<RunningServer> {
  if (!opts.token) throw new Error('startUpstashRedisRest: token must be a non-empty string');
  const shared = newRedis(opts.redisUrl);
  try {
    await shared.connect();
  } catch (err) {
    shared.disconnect();
    throw new Error(`startUpstashRedisRest: cannot reach Redis at ${opts.redisUrl}: ${errorText(err)}`);
  }
  const redisVersion = await readRedisVersion(shared);
  const backend: Backend = { shared, pool: new ConnectionPool(() => newRedis(opts.redisUrl), POOL_SIZE), redisVersion };
  const tokenDigest = sha256(opts.token);
  const syncTokens = new SyncTokens();
  const usage: BridgeUsage = { requests: 0, commands: 0 };
  const lateAnswers: LateAnswerRule[] = [];
  const server = createServer((req, res) => {
    handle(req, backend, tokenDigest, usage, lateAnswers).then(
      (body) => sendJson(res, 200, body, { 'upstash-sync-token': syncTokens.next() }),
      (err: unknown) => {
        const status = err instanceof HttpError ? err.status : 500;
        sendJson(res, status, { error: errorText(err) }, status === 405 ? { allow: 'POST' } : {});
      },
    );
  });
  server.on('clientError', onClientError);

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    redisVersion,
    answerLate: (rule) => void lateAnswers.push({ ...rule, count: rule.count ?? 1 }),
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      shared.disconnect();
      backend.pool.close();
    },
  };
}

// `tsx dev/upstash-redis-rest.ts`: serve the bridge for a local dev stack until interrupted.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.UPSTASH_REDIS_REST_TOKEN ?? 'dev-token';
  const running = await startUpstashRedisRest({
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    token,
    port: Number(process.env.UPSTASH_REDIS_REST_PORT ?? 8079),
  });
  console.log(
    `Upstash REST bridge on ${running.url} (Redis ${running.redisVersion})\nUPSTASH_REDIS_REST_URL=${running.url}\nUPSTASH_REDIS_REST_TOKEN=${token}`,
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void running.close().then(() => process.exit(0)));
}

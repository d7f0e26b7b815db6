// Imported so Buffer.* is typed: @cloudflare/workers-types (also in this tsconfig) declares a global `Buffer: any`.
import { Buffer } from 'node:buffer';
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import { acceptUpstashScriptFlags } from './upstash-redis-rest/script-flags.js';

// ioredis is CommonJS; loading it through require keeps its named exports intact under every
// loader (Vite's module runner, which runs the test global setup, drops them on an ESM import).
const ioredis = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
const { Command, Redis } = ioredis;
type Redis = RedisClient;

/**
 * Dev stand-in for the Upstash Redis REST API over a real Redis, so the unchanged `@upstash/redis`
 * client works offline. Wire facts: /work/shared/protocols/upstash-qstash.md section A.
 *
 * Routes: POST `/` (one command, flat JSON array), POST `/pipeline` and POST `/multi-exec` (2-D arrays).
 * Every answer is JSON. Not implemented (the client never uses them): path-style commands
 * (`/set/k/v`), `?_token=`, SSE subscribe, `Upstash-Response-Format: resp2`, read-your-writes sync tokens.
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
  close(): Promise<void>;
}

/** Bodies above this are answered 413 without being buffered. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Dedicated connections for transactions and blocking commands (each borrowed exclusively). */
const POOL_SIZE = 8;

type Cmd = [name: string, ...args: string[]];
type Json = string | number | null | Json[];
type Item = { result: Json } | { error: string };

/** An error that already knows its HTTP status; everything else becomes 500. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Command policy

/** Commands that only make sense on a long-lived connection, or that would break the shared one. */
const REFUSED = new Map(
  (
    [
      ['pub/sub needs a persistent connection', ['subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe', 'punsubscribe', 'sunsubscribe']],
      ['it streams forever', ['monitor']],
      ['it changes connection state; the REST endpoint is one database on a shared connection', ['select', 'swapdb', 'hello', 'reset', 'quit']],
      ['authentication is the bearer token', ['auth']],
      ['use POST /multi-exec', ['multi', 'exec', 'discard']],
      ['WATCH needs connection state across requests', ['watch', 'unwatch']],
      ['server administration is not exposed', ['shutdown', 'replicaof', 'slaveof', 'failover', 'sync', 'psync']],
    ] as const
  ).flatMap(([why, names]) => names.map((name): [string, string] => [name, why])),
);
/** CLIENT subcommands that would silence, rename or kill the bridge's own connections. */
const REFUSED_CLIENT_SUBCOMMANDS = new Set(['reply', 'kill', 'pause', 'setname', 'setinfo', 'tracking', 'caching', 'no-evict', 'no-touch']);

/** Timeout in seconds (ms for WAIT/XREAD, only compared with 0) of a blocking command, or undefined. */
function blockingTimeout([name, ...args]: Cmd): number | undefined {
  const lower = name.toLowerCase();
  if (['blpop', 'brpop', 'brpoplpush', 'blmove', 'bzpopmin', 'bzpopmax', 'wait', 'waitaof'].includes(lower)) return Number(args.at(-1));
  if (lower === 'blmpop' || lower === 'bzmpop') return Number(args[0]);
  if (lower === 'xread' || lower === 'xreadgroup') {
    const at = args.findIndex((a) => a.toLowerCase() === 'block');
    return at < 0 ? undefined : Number(args[at + 1]);
  }
  return undefined;
}

/**
 * Why a command is refused, or undefined. Blocking commands are allowed with a finite timeout (they
 * run on a borrowed connection), but a 0 timeout would hold the HTTP request open forever, so it is
 * refused; inside MULTI Redis never blocks, so there any timeout is fine.
 */
function refusal(cmd: Cmd, inTransaction: boolean): string | undefined {
  const lower = cmd[0].toLowerCase();
  const why =
    REFUSED.get(lower) ??
    (lower === 'client' && REFUSED_CLIENT_SUBCOMMANDS.has((cmd[1] ?? '').toLowerCase()) ? 'it would alter the bridge connection' : undefined) ??
    (!inTransaction && blockingTimeout(cmd) === 0 ? 'a blocking command needs a positive timeout over HTTP' : undefined);
  return why && `ERR ${cmd[0].toUpperCase()} is not supported over the REST API: ${why}`;
}

// ---------------------------------------------------------------------------------------------
// Request parsing

/** One command array → strings. Scalars are coerced like Upstash does; anything else is a client bug. */
function toCommand(value: unknown, where: string): Cmd {
  if (!Array.isArray(value)) throw new HttpError(400, `${where} must be a JSON array like ["set","key","value"]`);
  const [name, ...rest] = value as unknown[];
  if (typeof name !== 'string' || name === '') throw new HttpError(400, `${where} must start with the command name as a non-empty string`);
  const args = rest.map((arg, i) => {
    if (typeof arg === 'string' || typeof arg === 'number' || typeof arg === 'boolean') return String(arg);
    throw new HttpError(400, `argument ${i + 1} of ${where} is ${arg === null ? 'null' : typeof arg}; only strings, numbers and booleans are allowed`);
  });
  return acceptUpstashScriptFlags([name, ...args]);
}

function toCommandList(value: unknown): Cmd[] {
  if (!Array.isArray(value)) throw new HttpError(400, 'body must be a JSON array of command arrays like [["set","k","v"],["get","k"]]');
  if (value.length === 0) throw new HttpError(400, 'body must contain at least one command');
  return value.map((cmd, i) => toCommand(cmd, `command ${i + 1}`));
}

function checkAuth(header: string | undefined, expectedDigest: Buffer): void {
  if (!header) throw new HttpError(401, 'Unauthorized: missing Authorization header (expected "Bearer <token>")');
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match?.[1]) throw new HttpError(401, 'Unauthorized: malformed Authorization header (expected "Bearer <token>")');
  // Comparing fixed-length digests keeps the check constant-time regardless of the token's length.
  if (!timingSafeEqual(sha256(match[1]), expectedDigest)) throw new HttpError(401, 'Unauthorized: invalid token');
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Buffers the body up to MAX_BODY_BYTES; past that, 413 (Node drains and discards the rest). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  const tooLarge = () => new HttpError(413, `body exceeds ${MAX_BODY_BYTES} bytes`);
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      reject(tooLarge());
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

// ---------------------------------------------------------------------------------------------
// Reply encoding

/** RESP2 reply → JSON. In base64 mode every string at any depth is encoded, status replies like OK included. */
function encode(reply: unknown, base64: boolean): Json {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === 'number') return reply;
  if (isBuffer(reply)) return reply.toString(base64 ? 'base64' : 'utf8');
  if (Array.isArray(reply)) return reply.map((r) => encode(r, base64));
  // Errors nested in arrays (e.g. a Lua table holding redis.error_reply) have no JSON form; keep the text.
  if (reply instanceof Error) return encode(Buffer.from(reply.message), base64);
  return encode(Buffer.from(String(reply)), base64);
}

/** Named guard: narrowing `unknown` via Buffer.isBuffer directly yields a type whose toString takes no encoding. */
function isBuffer(value: unknown): value is Buffer {
  return Buffer.isBuffer(value);
}

function isRedisError(err: unknown): err is Error {
  return err instanceof Error && err.name === 'ReplyError';
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------------------------------------
// Execution

/**
 * ioredis rewrites the replies of a few commands looked up by their lower-case name (HGETALL becomes an
 * object). Upper-casing exactly those names bypasses that, since Redis is case-insensitive, while
 * every other command keeps the caller's spelling so Redis's error text (e.g. unknown command 'x')
 * stays faithful. If the internal table ever moves, upper-case everything rather than risk rewrites.
 */
const replyTransformers = (Command as unknown as { _transformer?: { reply?: Record<string, unknown> } })._transformer?.reply;
function ioredisName(name: string): string {
  return !replyTransformers || name.toLowerCase() in replyTransformers ? name.toUpperCase() : name;
}

/** Hands out connections exclusively, so MULTI..EXEC and blocking commands never share a socket. */
class ConnectionPool {
  private readonly idle: Redis[] = [];
  private readonly all = new Set<Redis>();
  private readonly waiting: ((r: Redis) => void)[] = [];

  constructor(
    private readonly create: () => Redis,
    private readonly max: number,
  ) {}

  async use<T>(fn: (r: Redis) => Promise<T>): Promise<T> {
    const redis = await this.acquire();
    try {
      return await fn(redis);
    } finally {
      const next = this.waiting.shift();
      if (next) next(redis);
      else this.idle.push(redis);
    }
  }

  close(): void {
    for (const r of this.all) r.disconnect();
  }

  private acquire(): Promise<Redis> {
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.all.size < this.max) {
      const fresh = this.create();
      this.all.add(fresh);
      return Promise.resolve(fresh);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

interface Backend {
  shared: Redis;
  pool: ConnectionPool;
}

function call(redis: Redis, [name, ...args]: Cmd): Promise<unknown> {
  return redis.callBuffer(ioredisName(name), ...args);
}

/** A blocking command would stall every request behind it on the shared socket, so it borrows one. */
function runOne(backend: Backend, cmd: Cmd): Promise<unknown> {
  if (blockingTimeout(cmd) !== undefined) return backend.pool.use((r) => call(r, cmd));
  return call(backend.shared, cmd);
}

/** Refused commands get their own `{error}` so an auto-pipelined batch does not fail as a whole. */
async function runPipeline(backend: Backend, cmds: Cmd[], base64: boolean): Promise<Item[]> {
  const refusals = cmds.map((cmd) => refusal(cmd, false));
  const runnable = cmds.filter((_, i) => refusals[i] === undefined);
  const exec = async (redis: Redis) => {
    const pipeline = redis.pipeline();
    for (const [name, ...args] of runnable) pipeline.callBuffer(ioredisName(name), ...args);
    return (await pipeline.exec()) ?? [];
  };
  const results = runnable.length === 0 ? [] : runnable.some((c) => blockingTimeout(c) !== undefined) ? await backend.pool.use(exec) : await exec(backend.shared);
  let next = 0;
  return refusals.map((why) => {
    if (why !== undefined) return { error: why };
    const [err, reply] = results[next++] ?? [new Error('ERR no reply from Redis'), null];
    return err ? { error: err.message } : { result: encode(reply, base64) };
  });
}

/**
 * MULTI..EXEC on one exclusively borrowed connection, so commands of concurrent requests cannot
 * land inside the transaction. Queue-time failures (EXECABORT) discard everything → 400; runtime
 * errors of single commands are per-item, as in Redis.
 */
async function runTransaction(backend: Backend, cmds: Cmd[], base64: boolean): Promise<Item[]> {
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
      const causes = ((err as Error & { previousErrors?: Error[] }).previousErrors ?? []).map((e) => e.message);
      throw new HttpError(400, [err.message, ...causes].join(' '));
    }
    return results.map(([err, reply]) => (err ? { error: err.message } : { result: encode(reply, base64) }));
  });
}

// ---------------------------------------------------------------------------------------------
// HTTP

type Route = (backend: Backend, body: unknown, base64: boolean) => Promise<Json | Item | Item[]>;

const routes: Record<string, Route> = {
  '/': async (backend, body, base64) => {
    const cmd = toCommand(body, 'body');
    const why = refusal(cmd, false);
    if (why) throw new HttpError(400, why);
    try {
      return { result: encode(await runOne(backend, cmd), base64) };
    } catch (err) {
      throw isRedisError(err) ? new HttpError(400, err.message) : err;
    }
  },
  '/pipeline': (backend, body, base64) => runPipeline(backend, toCommandList(body), base64),
  '/multi-exec': (backend, body, base64) => runTransaction(backend, toCommandList(body), base64),
};

/** Custom headers are typed string | string[]; Node only ever repeats set-cookie, so take the first. */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

async function handle(req: IncomingMessage, backend: Backend, tokenDigest: Buffer): Promise<unknown> {
  // Not new URL(): it would read a path like `//x/pipeline` as a host plus path.
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const route = routes[path];
  if (!route) throw new HttpError(404, `Endpoint not found: ${path} (this bridge serves POST /, /pipeline, /multi-exec)`);
  if (req.method !== 'POST') throw new HttpError(405, `Method ${req.method} not allowed; use POST`);
  checkAuth(req.headers.authorization, tokenDigest);
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') throw new HttpError(400, `Invalid content type ${JSON.stringify(req.headers['content-type'] ?? '')}; expected application/json`);
  const format = header(req, 'upstash-response-format');
  if (format !== undefined && format.toLowerCase() !== 'json') throw new HttpError(400, `Upstash-Response-Format ${JSON.stringify(format)} is not supported by this bridge; only json`);
  const raw = await readBody(req);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new HttpError(400, `Invalid JSON body: ${errorText(err)}`);
  }
  const base64 = header(req, 'upstash-encoding')?.toLowerCase() === 'base64';
  return route(backend, body, base64);
}

/** Malformed HTTP never reaches a handler; answer it in JSON too rather than Node's plain text. */
function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const [status, reason] = err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
  const text = JSON.stringify({ error: `Malformed HTTP request: ${err.message}` });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
}

function newRedis(url: string): Redis {
  // RESP2 because Upstash's JSON mirrors RESP2 shapes (ioredis 6 defaults to RESP3); few retries so a
  // dead Redis turns into a prompt 500 instead of a hung request.
  const redis = new Redis(url, { protocol: 2, lazyConnect: true, maxRetriesPerRequest: 1, connectionName: 'upstash-redis-rest' });
  // Failures surface on the commands themselves; without a listener ioredis logs every reconnect attempt.
  redis.on('error', () => {});
  return redis;
}

export async function startUpstashRedisRest(opts: UpstashRedisRestOptions): Promise<RunningServer> {
  if (!opts.token) throw new Error('startUpstashRedisRest: token must be a non-empty string');
  const shared = newRedis(opts.redisUrl);
  try {
    await shared.connect();
  } catch (err) {
    shared.disconnect();
    throw new Error(`startUpstashRedisRest: cannot reach Redis at ${opts.redisUrl}: ${errorText(err)}`);
  }
  const backend: Backend = { shared, pool: new ConnectionPool(() => newRedis(opts.redisUrl), POOL_SIZE) };
  const tokenDigest = sha256(opts.token);
  const server = createServer((req, res) => {
    handle(req, backend, tokenDigest).then(
      (body) => sendJson(res, 200, body),
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
  console.log(`Upstash REST bridge on ${running.url}\nUPSTASH_REDIS_REST_URL=${running.url}\nUPSTASH_REDIS_REST_TOKEN=${token}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void running.close().then(() => process.exit(0)));
}

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, Socket } from 'node:net';

/**
 * Finds a Redis server to use, or starts one. A dev stack and the tests need a real Redis; on a
 * machine that has one on the configured URL we reuse it, elsewhere we start `redis-server` on a
 * free port with persistence off, and stop it again on close.
 */
export interface RedisHandle {
  url: string;
  host: string;
  port: number;
  /** True when we started the server (and so will stop it). */
  owned: boolean;
  close(): Promise<void>;
}

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** Sends PING over a raw socket and resolves true on +PONG (no client library needed). */
export function pingRedis(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let buffer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      if (buffer.includes('\r\n')) done(buffer.startsWith('+PONG'));
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function parseRedisUrl(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:')
    throw new RedisUnavailableError(`REDIS_URL must be redis://host:port, got protocol ${parsed.protocol}`);
  return { host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || 6379) };
}

async function waitForPong(host: string, port: number, child: ChildProcess, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new RedisUnavailableError(`redis-server exited with code ${child.exitCode}`);
    if (await pingRedis(host, port, 200)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new RedisUnavailableError(`redis-server did not answer PING on ${host}:${port} within ${deadlineMs} ms`);
}

/**
 * Reuses the Redis at `preferredUrl` (default REDIS_URL or redis://127.0.0.1:6379) when it answers,
 * else spawns `redis-server` on a free port. Throws RedisUnavailableError with a clear message when
 * neither works (e.g. redis-server is not installed).
 */
export async function ensureRedis(
  preferredUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
): Promise<RedisHandle> {
  const preferred = parseRedisUrl(preferredUrl);
  if (await pingRedis(preferred.host, preferred.port)) {
    return { url: `redis://${preferred.host}:${preferred.port}`, ...preferred, owned: false, close: async () => {} };
  }
  const port = await freePort();
  const host = '127.0.0.1';
  const child = spawn('redis-server', ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (err) =>
      reject(
        new RedisUnavailableError(
          `no Redis answers on ${preferredUrl} and redis-server could not be started (${err.message}); install it (Debian: apt-get install -y redis-server) or set REDIS_URL`,
        ),
      ),
    ),
  );
  await Promise.race([waitForPong(host, port, child, 10_000), spawnError]);
  return {
    url: `redis://${host}:${port}`,
    host,
    port,
    owned: true,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

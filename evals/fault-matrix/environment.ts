import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startModelSandbox, type ModelSandbox } from '../../dev/model-sandbox.js';
import { freePort, pingRedis, RedisUnavailableError } from '../../dev/redis-server.js';
import { ROOT, startLocalStack, type LocalStack } from '../../dev/stack.js';
import { RedisSession } from '../../core/storage/redis-session.js';

/**
 * The fault matrix's world: a redis-server of its own that it can stop and start again (append-
 * only file on, fsync always, so what was committed before an outage is there after it — as on
 * Upstash), the whole local stack on it (wrangler dev, the Upstash REST bridge, the QStash broker,
 * the ManyChat sandbox) and the scripted model sandbox the Worker's real OpenAI provider talks to.
 */
export interface OwnRedis {
  url: string;
  port: number;
  /** Stops redis-server (SIGTERM: the AOF is flushed); resolves when the process has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory; resolves when it answers PING. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface FaultEnvironment {
  stack: LocalStack;
  redis: OwnRedis;
  model: ModelSandbox;
  session: RedisSession;
  workerUrl: string;
  /** Error lines the Worker logged (distinct, at most 50). */
  workerErrors: string[];
  close(): Promise<void>;
}

async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'faults-redis-'));
  let child: ChildProcess | null = null;
  const start = async () => {
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child = proc;
    const failed = new Promise<never>((_, reject) =>
      proc.once('error', (err) =>
        reject(
          new RedisUnavailableError(
            `redis-server could not be started (${err.message}); install it (Debian: apt-get install -y redis-server)`,
          ),
        ),
      ),
    );
    const until = Date.now() + 10_000;
    const ready = (async () => {
      while (Date.now() < until) {
        if (proc.exitCode !== null) throw new RedisUnavailableError(`redis-server exited with code ${proc.exitCode}`);
        if (await pingRedis('127.0.0.1', port, 200)) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new RedisUnavailableError(`redis-server did not answer on port ${port} within 10 s`);
    })();
    await Promise.race([ready, failed]);
  };
  const stop = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    close: async () => (await stop(), await rm(dir, { recursive: true, force: true })),
  };
}

export async function startFaultEnvironment(log: (line: string) => void = () => {}): Promise<FaultEnvironment> {
  const model = await startModelSandbox();
  let redis: OwnRedis;
  try {
    redis = await startOwnRedis();
  } catch (err) {
    await model.close();
    throw err;
  }
  const workerErrors: string[] = [];
  const onLog = (line: string) => {
    log(line);
    const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
    if (/\[worker\].*(\[ERROR\]|unhandled|Uncaught)/.test(plain) && workerErrors.length < 50) {
      const text = plain.replace(/^\[worker\]\s*(✘\s*)?/, '').trim();
      if (!workerErrors.includes(text)) workerErrors.push(text);
    }
  };
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      withWorker: true,
      stateDir: join(ROOT, '.local', 'faults'),
      qstashRetryBaseMs: 200,
      log: onLog,
      redisUrl: redis.url,
      workerVars: { OPENAI_API_KEY: 'sandbox', OPENAI_BASE_URL: model.baseURL, OPENAI_API_MODE: 'chat' },
    });
  } catch (err) {
    await model.close();
    await redis.close();
    throw err;
  }
  return {
    stack,
    redis,
    model,
    session: RedisSession.connect(stack.facts.upstash.url, stack.facts.upstash.token, 5000),
    workerUrl: stack.facts.workerUrl!,
    workerErrors,
    close: async () => {
      await stack.close();
      await model.close();
      await redis.close();
    },
  };
}

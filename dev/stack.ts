import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RedisSession } from '../core/storage/redis-session.js';
import { saveTenant } from '../src/tenants/tenant-store.js';
import { setDashboardUser } from '../src/dashboard/auth/users.js';
import { secretKeysFrom, type SecretKeys } from '../core/tenant/tenant-secrets.js';
import { PAGE_INBOX_APP_ID } from '../core/tenant/tenant-config.js';
import {
  DEMO_PAGE_ID,
  demoChannelSubscribers,
  demoMessengerPage,
  demoSandboxPage,
  demoSubscriber,
  demoTenantConfig,
  DEMO_CONTACT_ID,
  DEMO_DASHBOARD_LOGIN,
  DEMO_MANYCHAT_API_KEY,
  DEMO_MESSENGER,
  DEMO_TENANT_ID,
  DEMO_WEBHOOK_SECRET,
  DEMO_ADMIN_SECRET,
} from './demo-tenant.js';
import { startManyChatSandbox, type ManyChatSandbox } from './manychat-sandbox.js';
import { QSTASH_DEV_CREDENTIALS, startQStashBroker, type QStashBroker } from './qstash-broker.js';
import { ensureRedis, freePort, type RedisHandle } from './redis-server.js';
import { startUpstashRedisRest, type RunningServer } from './upstash-redis-rest.js';
import { mirrorTenantsIntoSandbox } from './sandbox-mirror.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEV_UPSTASH_TOKEN = 'dev-upstash-token';
export const DEV_SESSION_SECRET = 'dev-session-secret-change-me-in-production';
/** Local-only keys for tenant secrets at rest (a fixed key so a restarted stack still opens what it sealed). */
export const DEV_SECRETS_ENCRYPTION_KEYS = `dev1:${Buffer.alloc(32, 7).toString('base64')}`;
export const DEV_SECRETS_HASH_KEY = 'dev-secrets-hash-key-local-stack-only-0001';
export const DEV_OPERATOR_SECRET = 'dev-operator-secret-local-stack-only-00001';

/** The keys the local stack's Worker seals and hashes tenant secrets with. */
export function devSecretKeys(): Promise<SecretKeys> {
  return secretKeysFrom(DEV_SECRETS_ENCRYPTION_KEYS, DEV_SECRETS_HASH_KEY);
}

/** What a running local stack tells scripts, tests and the eval runner (`.local/stack.json`). */
export interface StackFacts {
  workerUrl: string | null;
  redisUrl: string;
  /** `redis_version` of that Redis: commands newer than it fail through the REST bridge. */
  redisVersion: string;
  upstash: { url: string; token: string };
  qstash: { url: string; token: string; currentSigningKey: string; nextSigningKey: string };
  manychat: { url: string; callsUrl: string; faultsUrl: string };
  demo: {
    tenantId: string;
    webhookSecret: string;
    adminSecret: string;
    contactId: string;
    manychatApiKey: string;
    dashboard: { url: string | null; user: string; password: string };
  };
  offlineModel: boolean;
  /** The operator API's secret (`npm run tenant` reads it from here). */
  operatorSecret: string;
}

export interface LocalStack {
  facts: StackFacts;
  redis: RedisHandle;
  upstash: RunningServer;
  qstash: QStashBroker;
  manychat: ManyChatSandbox;
  worker: ChildProcess | null;
  /** The env the Worker runs with (also written to `.local/worker.env`). */
  workerEnv: Record<string, string>;
  /** Kills `wrangler dev` (and whatever the Worker was doing) and starts it again on the same port. */
  restartWorker(): Promise<void>;
  close(): Promise<void>;
}

export interface StackOptions {
  /** Start `wrangler dev` too (npm start, e2e tests, evals). */
  withWorker?: boolean;
  workerPort?: number;
  /** Extra variables for the Worker (e.g. OPENAI_BASE_URL of a scripted model server). */
  workerVars?: Record<string, string>;
  qstashRetryBaseMs?: number;
  /** ManyChat's per-endpoint rate limits in the sandbox (default on; benchmarks turn them off). */
  manychatRateLimits?: boolean;
  /**
   * Anyone who writes in is a subscriber of the sandbox's pages, without `liveSandbox`'s mirror
   * (which polls every tenant twice a second): a benchmark with many contacts whose deliveries
   * must land. Default: as `liveSandbox`.
   */
  manychatAutoSubscribers?: boolean;
  log?: (line: string) => void;
  /** Where to write stack.json / worker.env. Default `.local/`. */
  stateDir?: string;
  /** The Redis to reuse (else REDIS_URL or redis://127.0.0.1:6379; a redis-server is started if none answers). */
  redisUrl?: string;
  /**
   * Run the Worker's cron (its `scheduled` handler, through wrangler's `--test-scheduled`
   * endpoint) this often, as Cloudflare would every minute. `npm start`: 60 000. Default: never
   * (tests and evals drive the cron themselves).
   */
  cronEveryMs?: number;
  /**
   * The sandbox behaves like ManyChat for a live business: anyone who writes in is a subscriber,
   * and the flows, tags and fields of every saved tenant config exist on its page. `npm start`: on.
   */
  liveSandbox?: boolean;
  /**
   * wrangler's `--log-level`: `log` shows the Worker's own console lines (one JSON line per turn,
   * the cron's counts) — `npm start`; default `warn` (tests, evals and benchmarks read their own
   * records and should not pay for a line per request).
   */
  workerLogLevel?: 'log' | 'warn';
  /** wrangler's `--inspector-port` (default 0: any free port). `npm run profile -- --runtime workerd` reads a CPU profile through it. */
  workerInspectorPort?: number;
}

/** Seeds the demo tenant (idempotent: rewrites config and secrets). */
export async function seedDemoTenant(upstashUrl: string, token: string, tenantId = DEMO_TENANT_ID): Promise<void> {
  const session = RedisSession.connect(upstashUrl, token);
  // Only the demo tenant owns the demo page (a page belongs to one tenant); copies seeded for tests and benchmarks own none.
  const config = demoTenantConfig(tenantId);
  const messenger =
    tenantId === DEMO_TENANT_ID ? { pages: [{ id: DEMO_PAGE_ID }], handoverAppId: PAGE_INBOX_APP_ID } : {};
  const saved = await saveTenant(
    session,
    { ...config, messenger: { ...config.messenger, ...messenger } },
    {
      plain: {
        webhookSecret: DEMO_WEBHOOK_SECRET,
        adminSecret: DEMO_ADMIN_SECRET,
        manychatApiKey: DEMO_MANYCHAT_API_KEY,
        messengerAppSecret: DEMO_MESSENGER.appSecret,
        messengerPageAccessToken: DEMO_MESSENGER.pageAccessToken,
        messengerVerifyToken: DEMO_MESSENGER.verifyToken,
      },
      keys: await devSecretKeys(),
    },
  );
  if (!saved.ok) throw new Error(`demo tenant config is invalid: ${saved.problems.join('; ')}`);
  // The dashboard's demo login (README), so `npm start` opens the dashboard out of the box.
  await setDashboardUser(session, tenantId, DEMO_DASHBOARD_LOGIN.user, DEMO_DASHBOARD_LOGIN.password);
}

/** Thrown when wrangler dev exits before the Worker answers; carries its last output lines. */
class WranglerExitedError extends Error {
  override name = 'WranglerExitedError';
}

/** The last lines a child printed (stdout and stderr), so an early exit can say why. */
function recentOutput(child: ChildProcess, keep = 30): string[] {
  const lines: string[] = [];
  const take = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(line);
    if (lines.length > keep) lines.splice(0, lines.length - keep);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return lines;
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number, output: string[] = []): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null)
      throw new WranglerExitedError(
        `wrangler dev exited with code ${child.exitCode}${output.length ? `; its last lines:\n${output.join('\n')}` : ''}`,
      );
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.status < 500 || res.status === 503) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the Worker did not answer on ${url} within ${timeoutMs} ms`);
}

/** What Cloudflare does every minute in production: the Worker's `scheduled` handler, through wrangler's test endpoint. */
function runCronEvery(workerUrl: string, everyMs: number, log: (line: string) => void): ReturnType<typeof setInterval> {
  const timer = setInterval(() => {
    fetch(`${workerUrl}/__scheduled?cron=${encodeURIComponent('* * * * *')}`, { signal: AbortSignal.timeout(everyMs) })
      .then((res) => {
        if (!res.ok) log(`[cron] the scheduled handler answered ${res.status}`);
      })
      .catch((err: unknown) =>
        log(`[cron] could not run the scheduled handler: ${err instanceof Error ? err.message : String(err)}`),
      );
  }, everyMs);
  timer.unref();
  return timer;
}

/** wrangler's table of bindings (every value hidden): noise on every start. */
const BINDINGS_TABLE = /^\s*(env\.[A-Z0-9_]+ \(|Binding\s+Resource|Your Worker has access to the following bindings)/;

function startWrangler(
  port: number,
  envFile: string,
  log: (line: string) => void,
  logLevel: 'log' | 'warn',
  inspectorPort = 0,
): ChildProcess {
  const bin = join(ROOT, 'node_modules', '.bin', 'wrangler');
  // `--test-scheduled` serves /__scheduled (the cron, run by runCronEvery).
  const child = spawn(
    bin,
    [
      'dev',
      '--local',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--env-file',
      envFile,
      '--show-interactive-dev-session=false',
      '--log-level',
      logLevel,
      '--test-scheduled',
      '--inspector-port',
      String(inspectorPort),
    ],
    {
      cwd: ROOT,
      // Its own process group, so stopping it also stops the workerd it spawns.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // No Request.cf lookup at workers.cloudflare.com: offline it failed with a stack trace on every start.
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: 'false',
        CI: process.env.CI ?? 'true',
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      },
    },
  );
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n'))
      if (line.trim() && !BINDINGS_TABLE.test(line)) log(`[worker] ${line}`);
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  return child;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** Starts Redis (or reuses one), the three stand-ins and optionally the Worker; seeds the demo tenant. */
export async function startLocalStack(opts: StackOptions = {}): Promise<LocalStack> {
  const log = opts.log ?? (() => {});
  const stateDir = opts.stateDir ?? join(ROOT, '.local');
  const redis = await ensureRedis(opts.redisUrl);
  const upstash = await startUpstashRedisRest({ redisUrl: redis.url, token: DEV_UPSTASH_TOKEN });
  const qstash = await startQStashBroker({
    ...QSTASH_DEV_CREDENTIALS,
    retryBaseMs: opts.qstashRetryBaseMs ?? 500,
    log: (l) => log(`[qstash] ${l}`),
  });
  const manychat = await startManyChatSandbox({
    pages: [demoSandboxPage()],
    messengerPages: [demoMessengerPage()],
    subscribers: [demoSubscriber(), ...demoChannelSubscribers()],
    enforceRateLimits: opts.manychatRateLimits ?? true,
    autoSubscribers: opts.manychatAutoSubscribers ?? opts.liveSandbox ?? false,
  });
  await seedDemoTenant(upstash.url, DEV_UPSTASH_TOKEN);
  const mirror = opts.liveSandbox
    ? mirrorTenantsIntoSandbox({
        session: RedisSession.connect(upstash.url, DEV_UPSTASH_TOKEN),
        sandbox: manychat,
        keys: await devSecretKeys(),
        everyMs: 500,
        log,
      })
    : null;
  await mirror?.syncNow();

  const workerPort = opts.withWorker ? (opts.workerPort ?? (await freePort())) : null;
  const workerUrl = workerPort ? `http://127.0.0.1:${workerPort}` : null;
  const workerEnv: Record<string, string> = {
    PUBLIC_URL: workerUrl ?? 'http://127.0.0.1:9',
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: DEV_UPSTASH_TOKEN,
    QSTASH_URL: qstash.url,
    QSTASH_TOKEN: QSTASH_DEV_CREDENTIALS.token,
    QSTASH_CURRENT_SIGNING_KEY: QSTASH_DEV_CREDENTIALS.currentSigningKey,
    QSTASH_NEXT_SIGNING_KEY: QSTASH_DEV_CREDENTIALS.nextSigningKey,
    MANYCHAT_API_URL: manychat.url,
    MESSENGER_GRAPH_URL: `${manychat.url}/v23.0`,
    SESSION_SECRET: DEV_SESSION_SECRET,
    SECRETS_ENCRYPTION_KEYS: DEV_SECRETS_ENCRYPTION_KEYS,
    SECRETS_HASH_KEY: DEV_SECRETS_HASH_KEY,
    OPERATOR_SECRET: DEV_OPERATOR_SECRET,
    // The local stack's fixed secrets and the offline rule model are allowed here, and only here.
    ENVIRONMENT: 'local',
    OPENAI_API_KEY: process.env.OPENAI_API_KEY ?? '',
    ...(process.env.OPENAI_BASE_URL ? { OPENAI_BASE_URL: process.env.OPENAI_BASE_URL } : {}),
    ...(process.env.OPENAI_API_MODE ? { OPENAI_API_MODE: process.env.OPENAI_API_MODE } : {}),
    ...opts.workerVars,
  };
  await mkdir(stateDir, { recursive: true });
  const envFile = join(stateDir, `worker-${workerPort ?? 'none'}.env`);
  await writeFile(
    envFile,
    Object.entries(workerEnv)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );

  let worker: ChildProcess | null = null;
  const stopWorker = async (signal: NodeJS.Signals) => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise<void>((r) => worker!.once('exit', () => r()));
      killGroup(worker, signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (worker.exitCode === null) killGroup(worker, 'SIGKILL');
    }
  };
  let cron: ReturnType<typeof setInterval> | null = null;
  const closeAll = async () => {
    if (cron) clearInterval(cron);
    mirror?.stop();
    await stopWorker('SIGTERM');
    await Promise.allSettled([manychat.close(), qstash.close(), upstash.close()]);
    await redis.close();
  };
  try {
    if (workerPort && workerUrl) {
      // Once more if wrangler dev exits while starting: with several stacks starting at once on a
      // loaded machine (the e2e files, three at a time) it has exited early, its reason printed.
      for (let attempt = 1; ; attempt++) {
        worker = startWrangler(workerPort, envFile, log, opts.workerLogLevel ?? 'warn', opts.workerInspectorPort);
        const output = recentOutput(worker);
        try {
          await waitForHttp(`${workerUrl}/v1/health`, worker, 60_000, output);
          break;
        } catch (err) {
          if (!(err instanceof WranglerExitedError) || attempt >= 2) throw err;
          log(`[worker] ${err.message}\n[worker] starting wrangler dev again`);
        }
      }
      if (opts.cronEveryMs) cron = runCronEvery(workerUrl, opts.cronEveryMs, log);
    }
  } catch (err) {
    await closeAll();
    throw err;
  }

  const facts: StackFacts = {
    workerUrl,
    redisUrl: redis.url,
    redisVersion: upstash.redisVersion,
    upstash: { url: upstash.url, token: DEV_UPSTASH_TOKEN },
    qstash: { url: qstash.url, ...QSTASH_DEV_CREDENTIALS },
    manychat: {
      url: manychat.url,
      callsUrl: `${manychat.url}/__sandbox/calls`,
      faultsUrl: `${manychat.url}/__sandbox/faults`,
    },
    demo: {
      tenantId: DEMO_TENANT_ID,
      webhookSecret: DEMO_WEBHOOK_SECRET,
      adminSecret: DEMO_ADMIN_SECRET,
      contactId: DEMO_CONTACT_ID,
      manychatApiKey: DEMO_MANYCHAT_API_KEY,
      dashboard: {
        url: workerUrl ? `${workerUrl}/dashboard` : null,
        user: DEMO_DASHBOARD_LOGIN.user,
        password: DEMO_DASHBOARD_LOGIN.password,
      },
    },
    offlineModel: !workerEnv.OPENAI_API_KEY,
    operatorSecret: workerEnv.OPERATOR_SECRET ?? DEV_OPERATOR_SECRET,
  };
  const restartWorker = async () => {
    if (!workerPort || !workerUrl) throw new Error('this stack runs no Worker');
    await stopWorker('SIGKILL');
    worker = startWrangler(workerPort, envFile, log, opts.workerLogLevel ?? 'warn', opts.workerInspectorPort);
    stack.worker = worker;
    await waitForHttp(`${workerUrl}/v1/health`, worker, 60_000);
  };
  const stack: LocalStack = {
    facts,
    redis,
    upstash,
    qstash,
    manychat,
    worker,
    workerEnv,
    restartWorker,
    close: closeAll,
  };
  return stack;
}

export async function writeStackFacts(facts: StackFacts, stateDir = join(ROOT, '.local')): Promise<string> {
  await mkdir(stateDir, { recursive: true });
  const file = join(stateDir, 'stack.json');
  await writeFile(file, JSON.stringify(facts, null, 2) + '\n', { mode: 0o600 });
  return file;
}

/**
 * The stack the benchmarks load, served from a child process so the load generator does not share
 * an event loop with the stand-ins: a private redis-server, the Upstash REST bridge, the QStash
 * broker, the ManyChat sandbox, the model sandbox and the Worker under `wrangler dev` (and, for
 * `npm run bench`, the bare worker beside it). Plus the /proc readings the benchmarks take of it.
 * Loopback only.
 *
 *   tsx evals/bench-stack.ts --serve [--bare] [--many-contacts] [--inspector-port N] [--state-dir DIR]   (the child; prints BENCH_READY {facts})
 *
 * `--many-contacts` (`npm run bench:scale`): the ManyChat sandbox takes anyone who writes in as a
 * subscriber and enforces no rate limit, so every staging turn's delivery lands. The sandbox serves
 * one page and one API key for every tenant, where each real tenant has its own page and its own
 * limits: one shared limit would refuse what separate pages accept.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { startModelSandbox, type ModelSandbox } from '../dev/model-sandbox.js';
import { ensureRedis, freePort } from '../dev/redis-server.js';
import { ROOT, startLocalStack, type LocalStack } from '../dev/stack.js';
import { startBareWorker } from './bare-worker/start.js';

export interface ServedFacts {
  workerUrl: string;
  /** Empty when the child was started without `--bare`. */
  bareUrl: string;
  modelUrl: string;
  upstash: { url: string; token: string };
  redisUrl: string;
  qstashUrl: string;
  workerWranglerPid: number;
  /** 0 without `--bare`. */
  bareWranglerPid: number;
}

const READY = 'BENCH_READY ';

// ---- child: serve the stack ------------------------------------------------------------------------

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

async function serve(opts: {
  bare: boolean;
  manyContacts: boolean;
  stateDir: string;
  inspectorPort: number;
}): Promise<void> {
  const log = (l: string) => process.stderr.write(`${l}\n`);
  const quiet = (l: string) => (/ERROR|✘/.test(l) ? log(l) : undefined);
  const model: ModelSandbox = await startModelSandbox({ recordBodies: false, maxRecorded: 1000 });
  // A Redis of its own (as the eval has): commands, memory and the idle cron count only the bench's tenants.
  const redis = await ensureRedis(`redis://127.0.0.1:${await freePort()}`);
  const stack: LocalStack = await startLocalStack({
    redisUrl: redis.url,
    withWorker: true,
    stateDir: opts.stateDir,
    log: quiet,
    workerVars: { OPENAI_API_KEY: 'sandbox', OPENAI_BASE_URL: model.baseURL, OPENAI_API_MODE: 'chat' },
    ...(opts.manyContacts ? { manychatAutoSubscribers: true, manychatRateLimits: false } : {}),
    workerInspectorPort: opts.inspectorPort,
  });
  const barePort = opts.bare ? await freePort() : 0;
  const bare = opts.bare
    ? startBareWorker(barePort, quiet, 0, {
        UPSTASH_URL: stack.facts.upstash.url,
        UPSTASH_TOKEN: stack.facts.upstash.token,
        MODEL_URL: model.url,
        // The library floor's `?publish=1`: the floor a staging turn is set against.
        QSTASH_URL: stack.facts.qstash.url,
        QSTASH_TOKEN: stack.facts.qstash.token,
      })
    : null;
  const bareUrl = bare ? `http://127.0.0.1:${barePort}` : '';
  const stop = async () => {
    bare?.kill('SIGTERM');
    await stack.close();
    await redis.close();
    await model.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  if (bare) await waitFor(`${bareUrl}/v1/health`, 60_000);
  const facts: ServedFacts = {
    workerUrl: stack.facts.workerUrl!,
    bareUrl,
    modelUrl: model.url,
    upstash: stack.facts.upstash,
    redisUrl: stack.facts.redisUrl,
    qstashUrl: stack.facts.qstash.url,
    workerWranglerPid: stack.worker!.pid!,
    bareWranglerPid: bare?.pid ?? 0,
  };
  process.stdout.write(`${READY}${JSON.stringify(facts)}\n`);
}

// ---- parent: read the stack ----------------------------------------------------------------------

/** `root` and its descendants, minus the subtrees rooted at `exclude` (Linux /proc). */
export function processTree(root: number, exclude: number[] = []): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    if (exclude.includes(pid)) return;
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/** Descendant pids of `root` whose command name is workerd (Linux /proc). */
export function workerdPids(root: number): number[] {
  const children = new Map<number, number[]>();
  const comm = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      comm.set(Number(entry), name);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      if ((comm.get(c) ?? '').includes('workerd')) out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** utime + stime of the processes, in seconds (Linux clock ticks at 100 Hz). */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / 100;
}

export function pidsByName(name: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === name) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

export function rssMb(pids: number[]): { rss: number; hwm: number } | null {
  let rss = 0;
  let hwm = 0;
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      hwm += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      return null;
    }
  }
  return pids.length ? { rss, hwm } : null;
}

/** Commands the Upstash REST bridge has been asked so far, counted as Upstash bills them (dev route `/__dev/usage`). */
export async function redisCommandsSoFar(upstash: { url: string; token: string }): Promise<number> {
  const res = await fetch(`${upstash.url}/__dev/usage`, { headers: { authorization: `Bearer ${upstash.token}` } });
  return ((await res.json()) as { commands: number }).commands;
}

/**
 * Messages the QStash broker has accepted so far (published, including a schedule's): its running
 * total, not the length of its message list, which keeps only the newest 10,000.
 */
export async function qstashMessagesSoFar(qstashUrl: string): Promise<number> {
  const res = await fetch(`${qstashUrl}/__dev/messages`);
  return ((await res.json()) as { published: number }).published;
}

export async function script(modelUrl: string, steps: unknown[]): Promise<void> {
  const res = await fetch(`${modelUrl}/__model/scripts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ safetyIdentifier: '*', steps, loop: true }),
  });
  if (!res.ok) throw new Error(`model sandbox refused the script: ${await res.text()}`);
}

export interface BenchStack {
  facts: ServedFacts;
  /** The stack process's pid (its tree holds the stand-ins and both wranglers). */
  pid: number;
  stop(): Promise<void>;
}

/** Starts the stack in a child process and waits until it has printed its facts. */
export async function startBenchStack(opts: {
  bare: boolean;
  stateDir: string;
  manyContacts?: boolean;
  /** The Worker's inspector port (`npm run profile -- --runtime workerd`); default any free port. */
  inspectorPort?: number;
}): Promise<BenchStack> {
  const args = [join(ROOT, 'evals', 'bench-stack.ts'), '--serve', '--state-dir', opts.stateDir];
  if (opts.bare) args.push('--bare');
  if (opts.manyContacts) args.push('--many-contacts');
  if (opts.inspectorPort) args.push('--inspector-port', String(opts.inspectorPort));
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (b: Buffer) => stderr.push(...b.toString().split('\n').filter(Boolean).slice(-20)));
  const facts = await new Promise<ServedFacts>((resolveFacts, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      if (line.startsWith(READY)) resolveFacts(JSON.parse(line.slice(READY.length)) as ServedFacts);
    });
    child.once('exit', (code) =>
      reject(new Error(`the stack process exited (${code}): ${stderr.slice(-10).join('\n')}`)),
    );
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 8000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  return { facts, pid: child.pid!, stop };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes('--serve')) {
  const at = process.argv.indexOf('--state-dir');
  const inspectorAt = process.argv.indexOf('--inspector-port');
  serve({
    inspectorPort: inspectorAt > 0 ? Number(process.argv[inspectorAt + 1]) : 0,
    bare: process.argv.includes('--bare'),
    manyContacts: process.argv.includes('--many-contacts'),
    stateDir: at > 0 && process.argv[at + 1] ? process.argv[at + 1]! : join(ROOT, '.local', 'bench'),
  }).catch((err) => {
    console.error(`bench stack failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}

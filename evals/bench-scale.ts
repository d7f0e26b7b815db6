/**
 * `npm run bench:scale` — a scale model, measured (issue 34, goal 3): many tenants, each with its
 * contacts, turns through the real Worker webhook on the bench stack (evals/bench-stack.ts: a
 * private redis-server, the Upstash REST bridge, the QStash broker, the ManyChat and model
 * sandboxes, `wrangler dev`). Loopback only; bounded in count (the flags) and time (`--max-seconds`).
 *
 *   npm run bench:scale -- [--tenants 1000] [--contacts 100] [--turns 20] [--depth-contacts 1]
 *                          [--concurrency 50] [--max-seconds 1800] [--json FILE]
 *   npm run bench:scale -- --extrapolate FILE   (the month's extrapolation again, from a run's --json)
 *
 * - Every tenant is created through the product's save path (saveTenant), each with its own config
 *   (the demo tenant's, under its own id) and its own webhook secret.
 * - Breadth: every contact of every tenant gets one turn (half no-tool, half staging). Depth: the
 *   first `--depth-contacts` contacts of each tenant (the sample) go on to `--turns` turns (the
 *   first half of the extra turns no-tool, the rest staging). The full issue load is
 *   `--depth-contacts` = `--contacts`; at ≈ 100 turns a second that is hours, hence the sample.
 * - Each phase runs `--concurrency` workers, each one contact at a time (its turns in order), so
 *   that many contacts are in flight until the phase's last requests. QStash delivers as it would:
 *   a staging turn's delivery reaches the Worker and the ManyChat sandbox, and each phase waits for
 *   its deliveries before its counters are read.
 * - Past `--max-seconds` no new turn starts; the report says what ran.
 * - After the load: Redis memory against the empty baseline, each key by class with and without a
 *   TTL (MEMORY USAGE and PTTL of every key); the cron, run through the Worker's scheduled handler.
 */
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import IORedis from 'ioredis';
import { demoTenantConfig } from '../dev/demo-tenant.js';
import { ROOT, devSecretKeys } from '../dev/stack.js';
import type { TurnRecord } from '../core/turn-record.js';
import { tenantKeys } from '../core/storage/keys.js';
import { RedisSession } from '../core/storage/redis-session.js';
import type { TenantConfigInput } from '../core/tenant/tenant-config.js';
import { saveTenant } from '../src/tenants/tenant-store.js';
import { deepMerge } from './case-format.js';
import { writeText } from './report.js';
import { fmtMs, mean, percentile, table } from './stats.js';
import {
  cpuSeconds,
  qstashMessagesSoFar,
  redisCommandsSoFar,
  script,
  startBenchStack,
  workerdPids,
  type ServedFacts,
} from './bench-stack.js';
import {
  monthlyCost,
  perUnit,
  splitByTtl,
  steadyStateBytes,
  tallyKey,
  LIST_PRICES,
  type CostLine,
  type KeyClassTotals,
  type UsagePerTurn,
} from './scale-model.js';

type Kind = 'no-tool' | 'staging';

interface Options {
  tenants: number;
  contacts: number;
  turns: number;
  depthContacts: number;
  concurrency: number;
  maxSeconds: number;
  json?: string;
  /** A run's `--json` to extrapolate from, instead of running. */
  extrapolate?: string;
}

interface Contact {
  tenant: number;
  index: number;
}

interface PhaseResult {
  name: string;
  kind: Kind;
  turnsPlanned: number;
  turns: number;
  ok: number;
  failed: Record<string, number>;
  stoppedByTime: boolean;
  seconds: number;
  latencies: number[];
  redisCommands: number;
  qstashMessages: number;
  workerdCpuSeconds: number;
  /** Requests the Worker answered in the phase: the turns plus the QStash deliveries. */
  workerRequests: number;
}

const REPLY = { text: 'Hello! How can I help?', escalate: false, confidence: 0.9, reason: 'bench' };
const SCRIPTS: Record<Kind, unknown[]> = {
  'no-tool': [{ reply: REPLY, latencyMs: 0 }],
  staging: [
    {
      calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
      reply: { ...REPLY, text: 'The brochure is on its way.' },
      latencyMs: 0,
    },
  ],
};

function parseOptions(): Options | string {
  const v = parseArgs({
    options: {
      tenants: { type: 'string', default: '1000' },
      contacts: { type: 'string', default: '100' },
      turns: { type: 'string', default: '20' },
      'depth-contacts': { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '50' },
      'max-seconds': { type: 'string', default: '1800' },
      json: { type: 'string' },
      extrapolate: { type: 'string' },
    },
  }).values;
  const o: Options = {
    tenants: Number(v.tenants),
    contacts: Number(v.contacts),
    turns: Number(v.turns),
    depthContacts: Number(v['depth-contacts']),
    concurrency: Number(v.concurrency),
    maxSeconds: Number(v['max-seconds']),
    ...(v.json ? { json: v.json } : {}),
    ...(v.extrapolate ? { extrapolate: v.extrapolate } : {}),
  };
  const int = (n: number, lo: number, hi: number) => Number.isInteger(n) && n >= lo && n <= hi;
  if (!int(o.tenants, 1, 10_000)) return '--tenants must be 1..10000';
  if (!int(o.contacts, 2, 1000)) return '--contacts must be 2..1000';
  if (!int(o.turns, 1, 100)) return '--turns must be 1..100';
  if (!int(o.depthContacts, 0, o.contacts)) return '--depth-contacts must be 0..--contacts';
  if (!int(o.concurrency, 1, 200)) return '--concurrency must be 1..200';
  if (!int(o.maxSeconds, 10, 6 * 3600)) return '--max-seconds must be 10..21600';
  return o;
}

const runTag = Date.now().toString(36).slice(-5);
const tenantId = (i: number) => `scale-${runTag}-${i}`;
const secretOf = (i: number) => `scale-secret-${runTag}-${i}`;
const contactId = (c: Contact) => String(7_000_000_000 + c.tenant * 10_000 + c.index);

/** Saves every tenant through the product's own save path, a few at a time. */
async function createTenants(session: RedisSession, o: Options): Promise<void> {
  const keys = await devSecretKeys();
  await pool(
    Array.from({ length: o.tenants }, (_, i) => i),
    8,
    Infinity,
    async (i) => {
      const config = deepMerge<TenantConfigInput>(demoTenantConfig(tenantId(i)), {
        guardrails: { rateLimit: { tenantPerMinute: 1_000_000, contactPerMinute: 1000 } },
      });
      const saved = await saveTenant(
        session,
        { ...config, tenantId: tenantId(i) },
        { plain: { webhookSecret: secretOf(i), manychatApiKey: '1000001:demo-manychat-key' }, keys },
      );
      if (!saved.ok) throw new Error(`tenant ${tenantId(i)} is invalid: ${saved.problems.join('; ')}`);
    },
  );
}

/** Runs `work` over `items` with `width` workers; no item starts after `deadline` (ms epoch). */
async function pool<T>(
  items: T[],
  width: number,
  deadline: number,
  work: (item: T) => Promise<void>,
): Promise<boolean> {
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (next < items.length) {
      if (Date.now() > deadline) {
        stopped = true;
        return;
      }
      await work(items[next++]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return stopped;
}

let messageSeq = 0;

/** One turn through the webhook, as ManyChat would post it: its latency, or why it failed. */
async function turn(facts: ServedFacts, c: Contact): Promise<{ ms: number; status: string }> {
  const started = performance.now();
  try {
    const res = await fetch(`${facts.workerUrl}/v1/manychat/${tenantId(c.tenant)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-staged-agent-secret': secretOf(c.tenant) },
      body: JSON.stringify({
        contact: { id: contactId(c), first_name: 'Scale' },
        text: 'Hello! Can you send me the brochure?',
        message_key: `scale-${runTag}-${++messageSeq}`,
      }),
      signal: AbortSignal.timeout(30_000),
    });
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: String(res.status) };
  } catch (err) {
    return { ms: performance.now() - started, status: err instanceof Error ? err.name : 'error' };
  }
}

interface BrokerCounts {
  open: number;
  /** Since the broker started (its running total: the message list keeps only the newest 10,000). */
  delivered: number;
}

/** The broker's messages not yet delivered, failed or cancelled, and its deliveries so far. */
async function brokerCounts(qstashUrl: string): Promise<BrokerCounts> {
  const res = await fetch(`${qstashUrl}/__dev/messages`);
  const { messages, delivered } = (await res.json()) as { messages: { state: string }[]; delivered: number };
  const open = messages.filter((m) => ['CREATED', 'RETRY', 'ACTIVE'].includes(m.state)).length;
  return { open, delivered };
}

/** Waits (bounded) until QStash has nothing left to deliver, so a phase's deliveries count in it. */
async function settle(qstashUrl: string, maxMs: number): Promise<BrokerCounts> {
  const until = Date.now() + maxMs;
  let counts = await brokerCounts(qstashUrl);
  while (counts.open > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    counts = await brokerCounts(qstashUrl);
  }
  return counts;
}

/** Each item is one contact and how many turns it takes, in order; `width` contacts in flight. */
async function runPhase(
  facts: ServedFacts,
  name: string,
  kind: Kind,
  items: { contact: Contact; turns: number }[],
  o: Options,
  deadline: number,
): Promise<PhaseResult> {
  await script(facts.modelUrl, SCRIPTS[kind]);
  const pids = workerdPids(facts.workerWranglerPid);
  const [commandsBefore, brokerBefore] = [await redisCommandsSoFar(facts.upstash), await brokerCounts(facts.qstashUrl)];
  const messagesBefore = await qstashMessagesSoFar(facts.qstashUrl);
  const cpuBefore = cpuSeconds(pids);
  const latencies: number[] = [];
  const failed: Record<string, number> = {};
  let turns = 0;
  const started = performance.now();
  const stoppedByTime = await pool(items, o.concurrency, deadline, async ({ contact, turns: n }) => {
    for (let i = 0; i < n; i++) {
      const r = await turn(facts, contact);
      turns += 1;
      if (r.status === '200') latencies.push(r.ms);
      else failed[r.status] = (failed[r.status] ?? 0) + 1;
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const brokerAfter = await settle(facts.qstashUrl, 120_000);
  console.log(
    `  ${name}: ${turns} turns in ${seconds.toFixed(0)} s${stoppedByTime ? ' (stopped by --max-seconds)' : ''}`,
  );
  return {
    name,
    kind,
    turnsPlanned: items.reduce((a, i) => a + i.turns, 0),
    turns,
    ok: latencies.length,
    failed,
    stoppedByTime,
    seconds,
    latencies,
    redisCommands: (await redisCommandsSoFar(facts.upstash)) - commandsBefore,
    qstashMessages: (await qstashMessagesSoFar(facts.qstashUrl)) - messagesBefore,
    workerdCpuSeconds: cpuSeconds(pids) - cpuBefore,
    workerRequests: turns + (brokerAfter.delivered - brokerBefore.delivered),
  };
}

async function usedMemory(raw: IORedis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await raw.info('memory'))?.[1] ?? NaN);
}

/** MEMORY USAGE and PTTL of every key, by class (a SCAN; the bench's Redis holds only this run). */
async function keyClasses(raw: IORedis): Promise<KeyClassTotals[]> {
  const totals = new Map<string, KeyClassTotals>();
  let cursor = '0';
  do {
    const [next, keys] = await raw.scan(cursor, 'COUNT', 2000);
    cursor = next;
    if (!keys.length) continue;
    const p = raw.pipeline();
    for (const k of keys) p.memory('USAGE', k).pttl(k);
    const replies = (await p.exec()) ?? [];
    keys.forEach((k, i) => {
      const bytes = Number(replies[2 * i]?.[1] ?? 0);
      const pttl = Number(replies[2 * i + 1]?.[1] ?? -1);
      if (pttl !== -2) tallyKey(totals, k, bytes, pttl);
    });
  } while (cursor !== '0');
  return [...totals.values()].sort((a, b) => b.bytes - a.bytes);
}

/**
 * Dead letters by state, over every tenant: under an overloaded machine a delivery attempt can stop
 * between its ledger claim and its answer; the retry then finds the claim and, by design, does not
 * resend a non-idempotent send (`unknown`).
 */
async function deadLetters(raw: IORedis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, keys] = await raw.scan(cursor, 'MATCH', 't:*:dead-letters', 'COUNT', 2000);
    cursor = next;
    for (const k of keys)
      for (const letter of await raw.lrange(k, 0, -1)) {
        let state = '?';
        try {
          state = (JSON.parse(letter) as { state?: string }).state ?? '?';
        } catch {
          // not JSON: counted as '?'
        }
        out[state] = (out[state] ?? 0) + 1;
      }
  } while (cursor !== '0');
  return out;
}

/** The cron through the Worker's scheduled handler: wall time and Redis commands, run by run. */
async function cronRuns(facts: ServedFacts, runs: number): Promise<{ ms: number; commands: number }[]> {
  const out: { ms: number; commands: number }[] = [];
  for (let i = 0; i < runs; i++) {
    const before = await redisCommandsSoFar(facts.upstash);
    const started = performance.now();
    const res = await fetch(`${facts.workerUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent('* * * * *')}`, {
      signal: AbortSignal.timeout(120_000),
    });
    await res.arrayBuffer();
    out.push({ ms: performance.now() - started, commands: (await redisCommandsSoFar(facts.upstash)) - before });
  }
  return out;
}

/** Model tokens and decisions from a sample of turn records (the last few turns of some tenants). */
async function sampleRecords(raw: IORedis, o: Options): Promise<TurnRecord[]> {
  const out: TurnRecord[] = [];
  const step = Math.max(1, Math.floor(o.tenants / 50));
  for (let t = 0; t < o.tenants; t += step) {
    const k = tenantKeys(tenantId(t));
    const ids = await raw.zrange(k.turnLog, '0', '-1');
    const bodies = ids.length ? await raw.mget(...ids.map((id) => k.turn(id))) : [];
    for (const b of bodies) if (b) out.push(JSON.parse(b) as TurnRecord);
  }
  return out;
}

const MB = 1024 * 1024;
const kb = (bytes: number) => (bytes / 1024).toFixed(2);

function phaseRows(phases: PhaseResult[]): string[][] {
  return phases.map((p) => [
    p.name,
    `${p.turns}/${p.turnsPlanned}`,
    String(p.ok),
    JSON.stringify(p.failed),
    (p.turns / p.seconds).toFixed(0),
    fmtMs(percentile(p.latencies, 50)),
    fmtMs(percentile(p.latencies, 95)),
    fmtMs(percentile(p.latencies, 99)),
    perUnit(p.redisCommands, p.turns).toFixed(2),
    perUnit(p.qstashMessages, p.turns).toFixed(3),
    perUnit(p.workerdCpuSeconds * 1000, p.workerRequests).toFixed(2),
  ]);
}

/** Sums of the phases of a kind (or all): commands, messages and CPU per turn. */
function usageOf(phases: PhaseResult[], tokens: { input: number; output: number }): UsagePerTurn {
  const turns = phases.reduce((a, p) => a + p.turns, 0);
  const sum = (f: (p: PhaseResult) => number) => phases.reduce((a, p) => a + f(p), 0);
  return {
    redisCommands: perUnit(
      sum((p) => p.redisCommands),
      turns,
    ),
    qstashMessages: perUnit(
      sum((p) => p.qstashMessages),
      turns,
    ),
    workerRequests: perUnit(
      sum((p) => p.workerRequests),
      turns,
    ),
    workerCpuMs: perUnit(sum((p) => p.workerdCpuSeconds) * 1000, turns),
    inputTokens: tokens.input,
    outputTokens: tokens.output,
  };
}

interface ExtrapolationInput {
  classes: KeyClassTotals[];
  measured: { tenants: number; contacts: number; turns: number };
  usage: UsagePerTurn;
  kinds: { noTool: UsagePerTurn; staging: UsagePerTurn };
  /** The cron's commands in its last (idle) run. */
  cronCommands: number;
}

/** The month — 10,000 tenants of 100 contacts, 10 M turns, in the run's mix of kinds — at list prices. */
function printExtrapolation({ classes, measured, usage, kinds, cronCommands }: ExtrapolationInput): {
  storageBytes: number;
  costs: CostLine[];
} {
  const target = { tenants: 10_000, contacts: 1_000_000, turnsPerMonth: 10_000_000 };
  const storage = steadyStateBytes(classes, measured, target);
  const costs = monthlyCost(usage, {
    turnsPerMonth: target.turnsPerMonth,
    cronCommandsPerMonth: cronCommands * 60 * 24 * 30,
    storageGb: storage / 1024 ** 3,
  });
  console.log(
    `\nPer turn (this run's mix): ${usage.redisCommands.toFixed(2)} Redis commands, ${usage.qstashMessages.toFixed(3)} QStash messages, ${usage.workerRequests.toFixed(3)} Worker requests, ${usage.workerCpuMs.toFixed(2)} ms workerd CPU (whole process under wrangler dev); by kind: no-tool ${kinds.noTool.redisCommands.toFixed(2)} commands / ${kinds.noTool.qstashMessages.toFixed(3)} messages, staging ${kinds.staging.redisCommands.toFixed(2)} / ${kinds.staging.qstashMessages.toFixed(3)}`,
  );
  console.log(
    `Extrapolated to ${target.tenants} tenants, ${target.contacts} contacts, ${target.turnsPerMonth} turns a month: steady-state Redis ${(storage / 1024 ** 3).toFixed(2)} GB (MEMORY USAGE; TTL'd keys alive for min(TTL, 30 days)); list prices:`,
  );
  console.log(
    table(
      ['service', '$ per 1,000 turns', '$ per month', 'arithmetic'],
      costs.map((c) => [
        c.service,
        Number.isFinite(c.per1000Turns) ? c.per1000Turns.toFixed(4) : '–',
        c.perMonth.toFixed(2),
        c.arithmetic,
      ]),
    ),
  );
  for (const [name, p] of Object.entries(LIST_PRICES))
    console.log(`  ${name}: $${p.usd} per ${p.per} ${p.unit} — ${p.source}`);
  return { storageBytes: storage, costs };
}

/** `--extrapolate FILE`: the extrapolation again from a run's `--json` (no stack, no load). */
async function extrapolateFrom(file: string): Promise<number> {
  const run = JSON.parse(await readFile(resolve(file), 'utf8')) as {
    options: Options;
    phases: (Omit<PhaseResult, 'latencies'> & { latencies?: number[] })[];
    memory: { classes: KeyClassTotals[] };
    cron: { commands: number }[];
    tokens: { input: number; output: number };
  };
  const phases = run.phases.map((p) => ({ ...p, latencies: p.latencies ?? [] }));
  const byKind = (k: Kind) => phases.filter((p) => p.kind === k);
  console.log(`bench:scale --extrapolate ${file}`);
  printExtrapolation({
    classes: run.memory.classes,
    measured: {
      tenants: run.options.tenants,
      contacts: phases[0]!.turns + phases[1]!.turns,
      turns: phases.reduce((a, p) => a + p.turns, 0),
    },
    usage: usageOf(phases, run.tokens),
    kinds: { noTool: usageOf(byKind('no-tool'), run.tokens), staging: usageOf(byKind('staging'), run.tokens) },
    cronCommands: run.cron.at(-1)?.commands ?? NaN,
  });
  return 0;
}

async function measure(o: Options): Promise<number> {
  const loadAt = (await import('node:os')).loadavg().map((l) => l.toFixed(2));
  console.log(
    `bench:scale: ${o.tenants} tenants × ${o.contacts} contacts; depth: the first ${o.depthContacts} contact(s) of each tenant to ${o.turns} turns; ${o.concurrency} contacts in flight; at most ${o.maxSeconds} s of load; ${cpus().length} CPUs, load average ${loadAt.join(' ')}`,
  );
  const stack = await startBenchStack({
    bare: false,
    manyContacts: true,
    stateDir: join(ROOT, '.local', 'bench-scale'),
  });
  const { facts } = stack;
  const raw = new IORedis(facts.redisUrl, { maxRetriesPerRequest: 2 });
  try {
    const session = RedisSession.connect(facts.upstash.url, facts.upstash.token, 30_000);
    const emptyBytes = await usedMemory(raw);
    const t0 = performance.now();
    await createTenants(session, o);
    const tenantsBytes = await usedMemory(raw);
    console.log(
      `created ${o.tenants} tenants in ${((performance.now() - t0) / 1000).toFixed(1)} s; used_memory ${(emptyBytes / MB).toFixed(1)} → ${(tenantsBytes / MB).toFixed(1)} MB`,
    );
    const deadline = Date.now() + o.maxSeconds * 1000;
    const all: Contact[] = [];
    // Contact-major order: consecutive requests go to different tenants, as many tenants' traffic would.
    for (let index = 0; index < o.contacts; index++)
      for (let tenant = 0; tenant < o.tenants; tenant++) all.push({ tenant, index });
    const once = (kind: number) => all.filter((c) => c.index % 2 === kind).map((contact) => ({ contact, turns: 1 }));
    const deep = all.filter((c) => c.index < o.depthContacts);
    const extra = o.turns - 1;
    const phases: PhaseResult[] = [];
    phases.push(await runPhase(facts, 'breadth, no-tool (turn 1)', 'no-tool', once(0), o, deadline));
    phases.push(await runPhase(facts, 'breadth, staging (turn 1)', 'staging', once(1), o, deadline));
    const breadthBytes = await usedMemory(raw);
    if (extra > 0 && deep.length) {
      const first = Math.ceil(extra / 2);
      phases.push(
        await runPhase(
          facts,
          `depth, no-tool (turns 2–${1 + first})`,
          'no-tool',
          deep.map((contact) => ({ contact, turns: first })),
          o,
          deadline,
        ),
      );
      if (extra - first > 0)
        phases.push(
          await runPhase(
            facts,
            `depth, staging (turns ${2 + first}–${o.turns})`,
            'staging',
            deep.map((contact) => ({ contact, turns: extra - first })),
            o,
            deadline,
          ),
        );
    }
    const afterBytes = await usedMemory(raw);
    const turnsRun = phases.reduce((a, p) => a + p.turns, 0);
    const breadthTurns = phases[0]!.turns + phases[1]!.turns;
    const loadEnd = (await import('node:os')).loadavg().map((l) => l.toFixed(2));

    console.log(
      `\nLoad: ${turnsRun} turns through /v1/manychat/<tenant> (${o.concurrency} contacts in flight; loopback; zero-latency scripted model; QStash delivering; load average at the end ${loadEnd.join(' ')}):`,
    );
    console.log(
      table(
        [
          'phase',
          'turns run/planned',
          '200',
          'other',
          'turns/s',
          'p50 ms',
          'p95 ms',
          'p99 ms',
          'Redis cmds/turn',
          'QStash msgs/turn',
          'workerd CPU ms/request',
        ],
        phaseRows(phases),
      ),
    );
    const latAll = phases.flatMap((p) => p.latencies);
    console.log(
      `  all phases: p50 ${fmtMs(percentile(latAll, 50))} ms, p95 ${fmtMs(percentile(latAll, 95))} ms, p99 ${fmtMs(percentile(latAll, 99))} ms over ${latAll.length} answered turns; stopped by --max-seconds: ${phases.some((p) => p.stoppedByTime) ? 'yes' : 'no'}`,
    );
    const byKind = (k: Kind) => phases.filter((p) => p.kind === k);

    // Memory: the whole Redis, then each key by class.
    const classes = await keyClasses(raw);
    // Each breadth turn is a different contact's first.
    const reached = breadthTurns;
    const all_ = splitByTtl(classes);
    console.log(
      `\nRedis memory (used_memory): empty ${(emptyBytes / MB).toFixed(1)} MB, ${o.tenants} tenants saved ${(tenantsBytes / MB).toFixed(1)} MB, after breadth (${breadthTurns} contacts, 1 turn each) ${(breadthBytes / MB).toFixed(1)} MB, after depth ${(afterBytes / MB).toFixed(1)} MB`,
    );
    console.log(
      `  per tenant (saved, no turns yet): ${kb(perUnit(tenantsBytes - emptyBytes, o.tenants))} KB; per contact after its first turn: ${kb(perUnit(breadthBytes - tenantsBytes, breadthTurns))} KB; per further turn of a sampled contact: ${kb(perUnit(afterBytes - breadthBytes, turnsRun - breadthTurns))} KB`,
    );
    console.log(
      `\nKeys by class (MEMORY USAGE of every key, ${classes.reduce((a, r) => a + r.keys, 0)} keys, ${(classes.reduce((a, r) => a + r.bytes, 0) / MB).toFixed(1)} MB summed; used_memory above includes Redis's own tables):`,
    );
    console.log(
      table(
        ['class', 'grows with', 'keys', 'MB', 'of which TTL’d MB', 'longest TTL (days)'],
        classes.map((r) => [
          r.name,
          r.scope,
          String(r.keys),
          (r.bytes / MB).toFixed(2),
          (r.ttlBytes / MB).toFixed(2),
          r.ttlKeys ? (r.maxTtlSeconds / 86400).toFixed(2) : 'none',
        ]),
      ),
    );
    const tenantSplit = splitByTtl(classes, 'tenant');
    const globalSplit = splitByTtl(classes, 'global');
    const contactSplit = splitByTtl(classes, 'contact');
    const turnSplit = splitByTtl(classes, 'turn');
    console.log('\nAfter retention (keys with a TTL are what retention removes; keys without one stay):');
    console.log(
      table(
        ['', 'without TTL (stays) KB', 'with TTL (expires) KB'],
        [
          [
            `per tenant (tenant + global keys ÷ ${o.tenants})`,
            kb(perUnit(tenantSplit.forever + globalSplit.forever, o.tenants)),
            kb(perUnit(tenantSplit.expiring + globalSplit.expiring, o.tenants)),
          ],
          [
            `per contact (contact keys ÷ ${reached})`,
            kb(perUnit(contactSplit.forever, reached)),
            kb(perUnit(contactSplit.expiring, reached)),
          ],
          [
            `per turn (turn keys ÷ ${turnsRun})`,
            kb(perUnit(turnSplit.forever, turnsRun)),
            kb(perUnit(turnSplit.expiring, turnsRun)),
          ],
          [
            `everything per contact (all keys ÷ ${reached})`,
            kb(perUnit(all_.forever, reached)),
            kb(perUnit(all_.expiring, reached)),
          ],
          [
            `everything per tenant (all keys ÷ ${o.tenants})`,
            kb(perUnit(all_.forever, o.tenants)),
            kb(perUnit(all_.expiring, o.tenants)),
          ],
        ],
      ),
    );

    // The cron, with this many tenants: right after the load (work may be due), then again.
    const cron = await cronRuns(facts, 6);
    console.log(`\nThe cron through the Worker's scheduled handler, ${o.tenants} tenants, 6 runs back to back:`);
    console.log(
      table(
        ['run', 'wall ms', 'Redis commands'],
        cron.map((r, i) => [String(i + 1), r.ms.toFixed(1), String(r.commands)]),
      ),
    );

    const records = await sampleRecords(raw, o);
    const tokensOf = (rs: TurnRecord[]) => ({
      input: mean(rs.map((r) => r.steps.reduce((a, s) => a + (s.inputTokens ?? 0), 0))),
      output: mean(rs.map((r) => r.steps.reduce((a, s) => a + (s.outputTokens ?? 0), 0))),
    });
    const committed = records.filter((r) => r.committed.length > 0);
    const decisions: Record<string, number> = {};
    for (const r of records) decisions[r.decision] = (decisions[r.decision] ?? 0) + 1;
    const tokens = tokensOf(records);
    const letters = await deadLetters(raw);
    console.log(
      `\nDead letters after the load: ${JSON.stringify(letters)} of ${phases.filter((p) => p.kind === 'staging').reduce((a, p) => a + p.turns, 0)} staging turns`,
    );
    console.log(
      `\nTurn records sampled (${records.length}, every turn of ${Math.ceil(o.tenants / Math.max(1, Math.floor(o.tenants / 50)))} tenants): decisions ${JSON.stringify(decisions)}, ${committed.length} committed actions; model tokens per turn (the sandbox's estimate, 4 characters a token, of the real prompt; output is the scripted reply): input ${tokens.input.toFixed(0)}, output ${tokens.output.toFixed(0)}`,
    );

    const usage = usageOf(phases, tokens);
    const kinds = { noTool: usageOf(byKind('no-tool'), tokens), staging: usageOf(byKind('staging'), tokens) };
    const measured = { tenants: o.tenants, contacts: reached, turns: turnsRun };
    const month = printExtrapolation({ classes, measured, usage, kinds, cronCommands: cron.at(-1)?.commands ?? NaN });

    if (o.json)
      await writeText(
        resolve(o.json),
        JSON.stringify(
          {
            options: o,
            loadAverage: { start: loadAt, end: loadEnd },
            phases: phases.map(({ latencies, ...p }) => ({
              ...p,
              p50: percentile(latencies, 50),
              p95: percentile(latencies, 95),
              p99: percentile(latencies, 99),
            })),
            memory: { emptyBytes, tenantsBytes, breadthBytes, afterBytes, classes },
            cron,
            tokens,
            decisions,
            deadLetters: letters,
            usage,
            ...month,
          },
          null,
          2,
        ),
      );
    return phases.every((p) => p.ok > 0) ? 0 : 1;
  } finally {
    raw.disconnect();
    await stack.stop();
  }
}

const options = parseOptions();
if (typeof options === 'string') {
  console.error(options);
  process.exit(2);
}
(options.extrapolate ? extrapolateFrom(options.extrapolate) : measure(options)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bench:scale failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);

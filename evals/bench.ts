/**
 * `npm run bench` — webhook throughput and latency of the Worker under load on the local stack,
 * next to a bare Hono handler on the same workerd, measured in the same run.
 *
 *   npm run bench -- [--duration S] [--connections N] [--warmup S] [--json FILE]
 *
 * - The stack (Redis, Upstash REST bridge, QStash broker, ManyChat sandbox, model sandbox) and
 *   both `wrangler dev` workers run in a child process, so the load generator (autocannon, here)
 *   does not share an event loop with the stand-ins. Loopback only.
 * - The model is the model sandbox with a zero-latency default script, so what is measured is the
 *   Worker: auth, rate limit, claim, prompt, the AI SDK loop over HTTP, guardrails, the commit.
 * - Every request is a new turn: a fresh contact id and message key per request.
 * - Scenarios: the bare handler; the I/O floor (the turn's subrequests with raw fetch), with and
 *   without the turn's log line; the library floor (the same I/O through Hono, @upstash/redis, the
 *   AI SDK and zod), and with one @upstash/qstash publish (a staging turn's floor); no-tool turns;
 *   staging turns (the flow is committed and published to QStash; QStash deliveries are paused
 *   from the publish floor on, so the outbox does not load the Worker).
 * - Redis round trips per turn come from the turn records; workerd memory is sampled from /proc
 *   (RSS of the whole process, not per turn).
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { ROOT } from '../dev/stack.js';
import type { TurnRecord } from '../core/turn-record.js';
import { TENANT_INDEX_KEY, tenantKeys } from '../core/storage/keys.js';
import { parseJson, RedisSession } from '../core/storage/redis-session.js';
import { writeText } from './report.js';
import { fmtMs, mean, percentile, table } from './stats.js';
import { saveBenchTenant } from './bench-tenant.js';
import {
  cpuSeconds,
  pidsByName,
  processTree,
  qstashMessagesSoFar,
  redisCommandsSoFar,
  rssMb,
  script,
  startBenchStack,
  workerdPids,
  type ServedFacts,
} from './bench-stack.js';

interface Scenario {
  name: string;
  /** CPU use during the scenario, in % of one CPU, per process group. */
  cpu?: Record<string, number>;
  /** CPU seconds per process group during the scenario (÷ requests: CPU per request). */
  cpuSeconds?: Record<string, number>;
  /** Commands Redis processed, and QStash messages published, during the scenario. */
  redisCommands?: number;
  qstashMessages?: number;
  rps: number;
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  statusCodes: Record<string, number>;
}

let seq = 0;
const base = 900_000_000_000 + (Date.now() % 1_000_000) * 1000;

async function load(
  name: string,
  url: string,
  secret: string | null,
  seconds: number,
  connections: number,
): Promise<Scenario> {
  const latencies: number[] = [];
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret ? { 'x-staged-agent-secret': secret } : {}) },
        setupRequest: (req) => {
          const n = ++seq;
          return {
            ...req,
            body: JSON.stringify({
              contact: { id: String(base + n), first_name: 'Bench' },
              text: 'Hello! Can you send me the brochure?',
              message_key: `bench-${base}-${n}`,
            }),
          };
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) =>
    latencies.push(responseTime),
  );
  const r: Result = await instance;
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, Number(v.count)]));
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    name,
    rps: total / r.duration,
    requests: total,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies.length ? Math.max(...latencies) : NaN,
    statusCodes,
  };
}

const reply = { text: 'Hello! How can I help?', escalate: false, confidence: 0.9, reason: 'bench' };

/** What one run of the cron costs with no work waiting: the Worker's scheduled handler, run as wrangler allows locally. */
async function idleCron(
  facts: ServedFacts,
  session: RedisSession,
): Promise<{ tenants: number; redisCommands: number; qstashMessages: number }> {
  const tenants = ((await session.one((r) => r.smembers(TENANT_INDEX_KEY))) as string[]).length;
  const runs = 3;
  // One run first so the sweep has nothing left from the scenarios (their turns are finished by now).
  await fetch(`${facts.workerUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent('* * * * *')}`);
  const [commands, messages] = [await redisCommandsSoFar(facts.upstash), await qstashMessagesSoFar(facts.qstashUrl)];
  for (let i = 0; i < runs; i++)
    await fetch(`${facts.workerUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent('* * * * *')}`);
  return {
    tenants,
    redisCommands: ((await redisCommandsSoFar(facts.upstash)) - commands) / runs,
    qstashMessages: ((await qstashMessagesSoFar(facts.qstashUrl)) - messages) / runs,
  };
}

async function measure(): Promise<number> {
  const args = parseArgs({
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
  if (args.help) {
    console.log(
      'usage: npm run bench -- [--duration S (default 10)] [--connections N (default 10)] [--warmup S (default 3)] [--json FILE]',
    );
    return 0;
  }
  const seconds = Number(args.duration ?? 10);
  const connections = Number(args.connections ?? 10);
  const warmup = Number(args.warmup ?? 3);
  if (!(seconds > 0 && seconds <= 120 && connections >= 1 && connections <= 200 && warmup >= 0 && warmup <= 60)) {
    console.error('--duration must be 1..120 s, --connections 1..200, --warmup 0..60 s');
    return 2;
  }

  console.log('bench: starting the local stack, the Worker and the bare Hono worker (child process)…');
  const stack = await startBenchStack({ bare: true, stateDir: join(ROOT, '.local', 'bench') });
  const { facts } = stack;
  try {
    const { tenantId, secret, session } = await saveBenchTenant(facts.upstash, 'bench');
    const workerUrl = `${facts.workerUrl}/v1/manychat/${tenantId}`;
    const bareUrl = `${facts.bareUrl}/v1/manychat/${tenantId}`;
    const floorUrl = `${facts.bareUrl}/v1/io-floor/${tenantId}`;
    const libraryFloorUrl = `${facts.bareUrl}/v1/library-floor/${tenantId}`;
    const productPids = workerdPids(facts.workerWranglerPid);
    const barePids = workerdPids(facts.bareWranglerPid);

    await script(facts.modelUrl, [{ reply, latencyMs: 0 }]);
    console.log(`warm-up ${warmup} s each…`);
    if (warmup) {
      await load('warm-up bare', bareUrl, null, warmup, connections);
      await load('warm-up I/O floor', floorUrl, null, warmup, connections);
      await load('warm-up library floor', libraryFloorUrl, null, warmup, connections);
      await load('warm-up worker', workerUrl, secret, warmup, connections);
    }
    const groups: Record<string, number[]> = {
      'Worker workerd': productPids,
      'Worker wrangler (node)': processTree(facts.workerWranglerPid).filter((p) => !productPids.includes(p)),
      'bare workerd': barePids,
      'stand-ins (node: bridge, broker, sandboxes)': processTree(stack.pid, [
        facts.workerWranglerPid,
        facts.bareWranglerPid,
      ]),
      'redis-server': pidsByName('redis-server'),
    };
    const measured = async (name: string, url: string, secretOrNull: string | null): Promise<Scenario> => {
      const [commandsBefore, messagesBefore] = [
        await redisCommandsSoFar(facts.upstash),
        await qstashMessagesSoFar(facts.qstashUrl),
      ];
      const before = Object.fromEntries(Object.entries(groups).map(([k, p]) => [k, cpuSeconds(p)]));
      const selfBefore = process.cpuUsage();
      const started = performance.now();
      const result = await load(name, url, secretOrNull, seconds, connections);
      const wall = (performance.now() - started) / 1000;
      const self = process.cpuUsage(selfBefore);
      const used = Object.fromEntries(Object.entries(groups).map(([k, p]) => [k, cpuSeconds(p) - before[k]!]));
      const cpu = Object.fromEntries(Object.entries(used).map(([k, s]) => [k, (100 * s) / wall]));
      cpu['load generator (autocannon)'] = (100 * (self.user + self.system)) / 1e6 / wall;
      // A turn's finish-turn job may publish a moment after its answer: let the tail settle.
      await new Promise((r) => setTimeout(r, 500));
      const redisCommands = (await redisCommandsSoFar(facts.upstash)) - commandsBefore;
      const qstashMessages = (await qstashMessagesSoFar(facts.qstashUrl)) - messagesBefore;
      return { ...result, cpu, cpuSeconds: used, redisCommands, qstashMessages };
    };
    const sampleRecords = async (n: number): Promise<TurnRecord[]> => {
      const ids = (await session.one((r) => r.zrange(tenantKeys(tenantId).turnLog, -Math.min(n, 300), -1))) as string[];
      const raws = ids.length
        ? ((await session.pipeline((p) => ids.forEach((id) => p.get(tenantKeys(tenantId).turn(id))))) as unknown[])
        : [];
      return raws.map((raw) => parseJson(raw) as TurnRecord | null).filter((r): r is TurnRecord => !!r);
    };
    const memBefore = rssMb(productPids);
    let memPeak = memBefore?.rss ?? 0;
    const sampler = setInterval(() => {
      const m = rssMb(productPids);
      if (m) memPeak = Math.max(memPeak, m.rss);
    }, 250);

    console.log(`measuring ${seconds} s per scenario, ${connections} connections…`);
    const bare = await measured('bare Hono handler (same workerd)', bareUrl, null);
    const floor = await measured("bare + a no-tool turn's subrequests (I/O floor)", floorUrl, null);
    const floorLogged = await measured("I/O floor + the turn's one log line", `${floorUrl}?log=1`, null);
    const libraryFloor = await measured(
      'the same I/O through the fixed libraries (library floor)',
      libraryFloorUrl,
      null,
    );
    const noTool = await measured('Worker: no-tool turn', workerUrl, secret);
    const noToolRecords = await sampleRecords(noTool.ok);
    await script(facts.modelUrl, [
      {
        calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
        reply: { ...reply, text: 'The brochure is on its way.' },
        latencyMs: 0,
      },
    ]);
    await fetch(`${facts.qstashUrl}/__dev/pause`, { method: 'POST' });
    // With QStash holding deliveries, as for the staging turns: the floor's publish is never delivered.
    const libraryFloorPublish = await measured(
      'the library floor + one QStash publish',
      `${libraryFloorUrl}?publish=1`,
      null,
    );
    const staging = await measured('Worker: staging turn (flow committed + published)', workerUrl, secret);
    const stagingRecords = await sampleRecords(staging.ok);
    clearInterval(sampler);
    const memAfter = rssMb(productPids);
    const bareMem = rssMb(barePids);

    // Redis round trips and stage timings from the turn records of the measured turns.
    const byKind = (staged: boolean) => (staged ? stagingRecords : noToolRecords);
    const trips = (rs: TurnRecord[]) => rs.map((r) => r.redisRoundTrips.beforeModel + r.redisRoundTrips.afterModel);
    const tripLine = (label: string, rs: TurnRecord[]) => {
      const t = trips(rs);
      const dist = [...new Set(t)]
        .sort()
        .map((v) => `${v}: ${t.filter((x) => x === v).length}`)
        .join(', ');
      return `  ${label}: mean ${mean(t).toFixed(2)} (before model ${mean(rs.map((r) => r.redisRoundTrips.beforeModel)).toFixed(2)}, after ${mean(rs.map((r) => r.redisRoundTrips.afterModel)).toFixed(2)}); distribution {${dist}}; n=${t.length}`;
    };

    const rows = [bare, floor, floorLogged, libraryFloor, libraryFloorPublish, noTool, staging].map((s) => [
      s.name,
      s.rps.toFixed(0),
      String(s.requests),
      fmtMs(s.p50),
      fmtMs(s.p95),
      fmtMs(s.p99),
      fmtMs(s.max),
      `${s.non2xx + s.errors}`,
    ]);
    console.log(
      `\nWebhook under load (${connections} connections, ${seconds} s each, loopback, zero-latency scripted model; ${(await import('node:os')).cpus().length} CPUs shared by load generator, workerd and the stand-ins):`,
    );
    console.log(
      table(['scenario', 'req/s', 'requests', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'non-2xx+errors'], rows),
    );
    console.log(
      `\nRatio to the bare Hono handler: throughput no-tool ${(noTool.rps / bare.rps).toFixed(3)}× (${(bare.rps / noTool.rps).toFixed(1)}× slower), staging ${(staging.rps / bare.rps).toFixed(3)}×; p50 latency no-tool ${(noTool.p50 / bare.p50).toFixed(1)}×, staging ${(staging.p50 / bare.p50).toFixed(1)}×`,
    );
    for (const s of [bare, floor, noTool, staging])
      if (s.non2xx + s.errors)
        console.log(`  ${s.name}: status codes ${JSON.stringify(s.statusCodes)}, connection errors ${s.errors}`);
    console.log('\nCPU during each scenario (% of one CPU):');
    const groupNames = Object.keys(bare.cpu ?? {});
    console.log(
      table(
        ['process', ...[bare, floor, noTool, staging].map((s) => s.name.replace(/ \(.*\)$/, ''))],
        groupNames.map((g) => [g, ...[bare, floor, noTool, staging].map((s) => `${(s.cpu?.[g] ?? NaN).toFixed(0)} %`)]),
      ),
    );
    const perRequest = (s: Scenario, group: string) => ((s.cpuSeconds?.[group] ?? NaN) * 1000) / s.requests;
    console.log(
      '\nCPU per request (ms of CPU time ÷ requests answered; Workers bill CPU time, the free plan stops a request at 10 ms):',
    );
    console.log(
      table(
        ['scenario', 'workerd CPU ms / request'],
        [
          ...[bare, floor, libraryFloor, libraryFloorPublish].map((s) => [
            s.name,
            perRequest(s, 'bare workerd').toFixed(2),
          ]),
          ...[noTool, staging].map((s) => [s.name, perRequest(s, 'Worker workerd').toFixed(2)]),
        ],
      ),
    );
    console.log(
      `  Worker ÷ bare: no-tool ${(perRequest(noTool, 'Worker workerd') / perRequest(bare, 'bare workerd')).toFixed(1)}×, staging ${(perRequest(staging, 'Worker workerd') / perRequest(bare, 'bare workerd')).toFixed(1)}× (workerd in wrangler dev, which adds its own per-request work; a deployed isolate does less)`,
    );
    const floorCpu = perRequest(floor, 'bare workerd');
    // Issue 34's figures: the product's own CPU (a turn's workerd CPU per request less its I/O
    // floor's) and its throughput as a share of the floor's. The staging turn is set against the
    // same no-tool floor (its extra QStash publish is not in the floor), so its figure is an upper bound.
    const aboveFloor = {
      noTool: perRequest(noTool, 'Worker workerd') - floorCpu,
      staging: perRequest(staging, 'Worker workerd') - floorCpu,
    };
    const vsFloor = { noTool: noTool.rps / floor.rps, staging: staging.rps / floor.rps };
    console.log(
      `  A no-tool turn above its I/O floor (the same subrequests with no logic): ${aboveFloor.noTool.toFixed(2)} ms — the product's own code; the floor, ${floorCpu.toFixed(2)} ms, is workerd carrying the turn's four HTTP exchanges`,
    );
    console.log(
      `  product above floor: no-tool ${aboveFloor.noTool.toFixed(2)} ms, staging ${aboveFloor.staging.toFixed(2)} ms (CPU ms / request); throughput vs floor: no-tool ${vsFloor.noTool.toFixed(3)}×, staging ${vsFloor.staging.toFixed(3)}× (${noTool.rps.toFixed(0)} / ${staging.rps.toFixed(0)} vs ${floor.rps.toFixed(0)} req/s)`,
    );
    // What the one structured line a turn writes costs workerd here: under wrangler dev each console
    // line crosses to wrangler's process; a deployed Worker hands it to Workers Logs instead.
    const logLineCpu = perRequest(floorLogged, 'bare workerd') - floorCpu;
    console.log(
      `  the turn's one log line: ${logLineCpu.toFixed(2)} ms of workerd CPU a request under wrangler dev (the floor with it ${perRequest(floorLogged, 'bare workerd').toFixed(2)} ms, ${floorLogged.rps.toFixed(0)} req/s); the product above that floor: no-tool ${(aboveFloor.noTool - logLineCpu).toFixed(2)} ms, staging ${(aboveFloor.staging - logLineCpu).toFixed(2)} ms; throughput vs it: no-tool ${(noTool.rps / floorLogged.rps).toFixed(3)}×`,
    );
    // The libraries the product is fixed to (Hono, @upstash/redis, the AI SDK and its OpenAI
    // provider, zod) making the turn's I/O with no product logic: what is left above this floor is
    // the product's own code.
    const libraryCpu = perRequest(libraryFloor, 'bare workerd') - floorCpu;
    // A staging turn makes one more subrequest (the QStash publish): its floor makes it too.
    const aboveLibraryFloor = {
      noTool: perRequest(noTool, 'Worker workerd') - perRequest(libraryFloor, 'bare workerd'),
      staging: perRequest(staging, 'Worker workerd') - perRequest(libraryFloorPublish, 'bare workerd'),
    };
    const vsLibraryFloor = {
      noTool: noTool.rps / libraryFloor.rps,
      staging: staging.rps / libraryFloorPublish.rps,
    };
    console.log(
      `  the fixed libraries making the same I/O: ${libraryCpu.toFixed(2)} ms above the I/O floor (the library floor ${perRequest(libraryFloor, 'bare workerd').toFixed(2)} ms, ${libraryFloor.rps.toFixed(0)} req/s); the product's own code above the library floor: no-tool ${aboveLibraryFloor.noTool.toFixed(2)} ms (its log line included), staging ${aboveLibraryFloor.staging.toFixed(2)} ms (above the floor with a publish, ${perRequest(libraryFloorPublish, 'bare workerd').toFixed(2)} ms); throughput vs it: no-tool ${vsLibraryFloor.noTool.toFixed(3)}×, staging ${vsLibraryFloor.staging.toFixed(3)}×`,
    );
    const idle = await idleCron(facts, session);
    console.log(
      '\nCost per turn (Upstash bills Redis commands — each command of a pipeline or transaction, a script as one — and QStash bills messages):',
    );
    console.log(
      table(
        ['', 'Redis commands', 'QStash messages'],
        [
          ...[noTool, staging].map((s) => [
            `per ${s.name.replace('Worker: ', '').replace(/ \(.*\)$/, '')}`,
            ((s.redisCommands ?? NaN) / s.requests).toFixed(1),
            ((s.qstashMessages ?? NaN) / s.requests).toFixed(2),
          ]),
          [
            `per idle cron minute (${idle.tenants} tenants in this Redis)`,
            idle.redisCommands.toFixed(0),
            idle.qstashMessages.toFixed(0),
          ],
        ],
      ),
    );
    console.log(
      `\nRedis round trips per turn (turn records of the last ${noToolRecords.length} no-tool and ${stagingRecords.length} staging turns measured):`,
    );
    console.log(tripLine('no-tool turns', byKind(false)));
    console.log(tripLine('staging turns', byKind(true)));
    const tm = (k: keyof TurnRecord['timings'], rs: TurnRecord[]) =>
      fmtMs(
        percentile(
          rs.map((r) => r.timings[k]),
          50,
        ),
      );
    console.log(
      `  stage timings p50 (ms) in the Worker — no-tool: load ${tm('loadMs', byKind(false))}, model ${tm('modelMs', byKind(false))}, guardrails ${tm('guardrailsMs', byKind(false))}, total ${tm('totalMs', byKind(false))}; staging: load ${tm('loadMs', byKind(true))}, model ${tm('modelMs', byKind(true))}, guardrails ${tm('guardrailsMs', byKind(true))}, total ${tm('totalMs', byKind(true))}`,
    );
    console.log('\nMemory:');
    if (memBefore && memAfter) {
      console.log(
        `  Worker workerd RSS: ${memBefore.rss.toFixed(0)} MB after warm-up, ${memAfter.rss.toFixed(0)} MB after ${noTool.requests + staging.requests} more turns, peak sampled ${memPeak.toFixed(0)} MB (high-water ${memAfter.hwm.toFixed(0)} MB); bare worker workerd RSS ${bareMem ? bareMem.rss.toFixed(0) : '?'} MB.`,
      );
      console.log(
        '  Memory per turn: not measured. workerd does not expose per-request isolate heap, RSS moves with the allocator and GC rather than per turn, and the dev runtime holds the module graph; the RSS above is context only.',
      );
    } else console.log('  not measured (no /proc entry for workerd found).');

    if (args.json) {
      await writeText(
        resolve(args.json),
        JSON.stringify(
          {
            seconds,
            connections,
            bare,
            floor,
            noTool,
            staging,
            cpuPerRequest: {
              bare: perRequest(bare, 'bare workerd'),
              floor: floorCpu,
              noTool: perRequest(noTool, 'Worker workerd'),
              staging: perRequest(staging, 'Worker workerd'),
            },
            aboveFloor,
            vsFloor,
            floorLogged,
            logLineCpu,
            libraryFloor,
            libraryFloorPublish,
            libraryCpu,
            aboveLibraryFloor,
            vsLibraryFloor,
            redisRoundTrips: { noTool: trips(byKind(false)), staging: trips(byKind(true)) },
            memory: { before: memBefore, after: memAfter, peakRss: memPeak, bare: bareMem },
          },
          null,
          2,
        ),
      );
      console.log(`\nJSON: ${resolve(args.json)}`);
    }
    // A floor that answered errors measured something else: the run fails rather than print it.
    const floorsClean = [floor, floorLogged, libraryFloor, libraryFloorPublish].every((s) => s.non2xx + s.errors === 0);
    return noTool.ok > 0 && staging.ok > 0 && floorsClean ? 0 : 1;
  } finally {
    await stack.stop();
  }
}

measure().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);

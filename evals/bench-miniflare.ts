/**
 * `npm run bench:miniflare` — issue 34's CPU figures with no `wrangler dev` in the way. `npm run
 * bench` runs both workers under `wrangler dev`, which puts its own proxy and an inspector in front
 * of every request and takes every console line into its own process: on this machine that alone
 * is ~2.7 ms of workerd CPU a request (the I/O floor costs 3.5–3.7 ms there, 0.9 ms here). Here
 * the Worker and the bench's bare worker (evals/bare-worker) are bundled as `wrangler deploy
 * --dry-run` bundles them and run by Miniflare directly — workerd, the Worker's own bundle, no
 * inspector, console output drained — against the same stand-ins. Scenarios, alternated over
 * `--rounds`: the I/O floor, the floor with the turn's one log line, the floor with a raw QStash
 * publish (a staging turn's same subrequests: the I/O floor a staging turn is set against), the
 * library floor, the library floor with a QStash publish through `@upstash/qstash`, a no-tool turn,
 * a staging turn (QStash holds the deliveries, as in the bench). workerd's CPU per request is
 * read from /proc per process. Loopback only.
 *
 *   npm run bench:miniflare -- [--duration S (default 10)] [--rounds N (default 3)] [--json FILE]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Miniflare } from 'miniflare';
import { startModelSandbox } from '../dev/model-sandbox.js';
import { freePort } from '../dev/redis-server.js';
import { DEV_UPSTASH_TOKEN, ROOT, startLocalStack } from '../dev/stack.js';
import { cpuSeconds, workerdPids } from './bench-stack.js';
import { table } from './stats.js';
import { saveBenchTenant } from './bench-tenant.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], digits = 2) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

/** `wrangler deploy --dry-run` of a wrangler.toml into a temp dir: the bundle a deploy would upload. */
function bundle(config: string): string {
  const outdir = mkdtempSync(join(tmpdir(), 'mf-bundle-'));
  const run = spawnSync(
    join(ROOT, 'node_modules', '.bin', 'wrangler'),
    ['deploy', '--dry-run', '--outdir', outdir, '-c', config],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' } },
  );
  if (run.status !== 0) throw new Error(`bundling ${config} failed: ${run.stderr}`);
  return outdir;
}

/** The `[vars]` of wrangler.toml (flat `KEY = "value"` lines), as a deploy would bind them. */
function tomlVars(file: string): Record<string, string> {
  const text = readFileSync(file, 'utf8');
  const section = /\n\[vars\]\n([\s\S]*?)(\n\[|$)/.exec(text)?.[1] ?? '';
  return Object.fromEntries([...section.matchAll(/^([A-Z0-9_]+)\s*=\s*"([^"]*)"/gm)].map((m) => [m[1]!, m[2]!]));
}

function miniflare(outdir: string, bindings: Record<string, string>, port: number): Miniflare {
  return new Miniflare({
    // Listed rather than found: the bundle's @upstash/qstash has a dev-mode `import(\`node:${m}\`)`
    // Miniflare cannot follow; it is never run here.
    modules: [{ type: 'ESModule', path: join(outdir, 'index.js') }],
    modulesRoot: outdir,
    compatibilityDate: '2026-08-01',
    compatibilityFlags: ['nodejs_compat'],
    bindings,
    host: '127.0.0.1',
    port,
    // Drained, not printed: what a console line costs workerd is measured, not a terminal.
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.resume();
      stderr.resume();
    },
  });
}

interface Measured {
  msPerRequest: number;
  rps: number;
}

async function main(): Promise<number> {
  const args = parseArgs({
    options: { duration: { type: 'string' }, rounds: { type: 'string' }, json: { type: 'string' } },
  }).values;
  const seconds = Number(args.duration ?? 10);
  const rounds = Number(args.rounds ?? 3);
  if (!(seconds >= 1 && seconds <= 120 && Number.isInteger(rounds) && rounds >= 1 && rounds <= 10)) {
    console.error('--duration must be 1..120 s and --rounds 1..10');
    return 2;
  }
  // The workerd `wrangler dev` runs (the `workerd` package wrangler depends on), not the older one
  // Miniflare 4 ships: the two benches then differ by wrangler dev's layers, not by runtime version.
  const workerd = await import('workerd');
  process.env.MINIFLARE_WORKERD_PATH = workerd.default;
  const bareOut = bundle(join(ROOT, 'evals', 'bare-worker', 'wrangler.toml'));
  const workerOut = bundle(join(ROOT, 'wrangler.toml'));
  const model = await startModelSandbox({ recordBodies: false, maxRecorded: 100 });
  const reply = { text: 'Hello! How can I help?', escalate: false, confidence: 0.9, reason: 'bench' };
  const stack = await startLocalStack({
    redisUrl: `redis://127.0.0.1:${await freePort()}`,
    withWorker: false,
    stateDir: join(ROOT, '.local', 'bench-miniflare'),
    manychatRateLimits: false,
  });
  const [barePort, workerPort] = [await freePort(), await freePort()];
  const bare = miniflare(
    bareOut,
    {
      UPSTASH_URL: stack.facts.upstash.url,
      UPSTASH_TOKEN: DEV_UPSTASH_TOKEN,
      MODEL_URL: model.url,
      QSTASH_URL: stack.facts.qstash.url,
      QSTASH_TOKEN: stack.facts.qstash.token,
    },
    barePort,
  );
  let worker: Miniflare | null = null;
  try {
    const bareUrl = (await bare.ready).toString().replace(/\/$/, '');
    const barePids = workerdPids(process.pid);
    worker = miniflare(
      workerOut,
      {
        ...tomlVars(join(ROOT, 'wrangler.toml')),
        ...stack.workerEnv,
        PUBLIC_URL: `http://127.0.0.1:${workerPort}`,
        OPENAI_API_KEY: 'sandbox',
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_MODE: 'chat',
      },
      workerPort,
    );
    const workerUrl = (await worker.ready).toString().replace(/\/$/, '');
    const workerPids = workerdPids(process.pid).filter((p) => !barePids.includes(p));

    const { tenantId, secret } = await saveBenchTenant(stack.facts.upstash, 'mf');
    await fetch(`${stack.facts.qstash.url}/__dev/pause`, { method: 'POST' });

    let n = 0;
    const base = Date.now() * 1000;
    const load = async (url: string, pids: number[], duration: number, secretHeader?: string): Promise<Measured> => {
      const before = cpuSeconds(pids);
      const r = await autocannon({
        url,
        connections: 10,
        duration,
        requests: [
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(secretHeader ? { 'x-staged-agent-secret': secretHeader } : {}),
            },
            setupRequest: (req) => {
              const i = ++n;
              return {
                ...req,
                body: JSON.stringify({
                  contact: { id: String(base + i), first_name: 'Bench' },
                  text: 'Hello! Can you send me the brochure?',
                  message_key: `mf-${base}-${i}`,
                }),
              };
            },
          },
        ],
      });
      if (r.non2xx + r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      return { msPerRequest: ((cpuSeconds(pids) - before) * 1000) / r['2xx'], rps: r['2xx'] / r.duration };
    };
    const noToolScript = [{ reply, latencyMs: 0 }];
    const stagingScript = [
      {
        calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
        reply: { ...reply, text: 'On its way.' },
        latencyMs: 0,
      },
    ];
    model.script({ safetyIdentifier: '*', steps: noToolScript, loop: true });
    const scenarios = {
      floor: () => load(`${bareUrl}/v1/io-floor/${tenantId}`, barePids, seconds),
      floorLogged: () => load(`${bareUrl}/v1/io-floor/${tenantId}?log=1`, barePids, seconds),
      floorPublish: () => load(`${bareUrl}/v1/io-floor/${tenantId}?publish=1`, barePids, seconds),
      libraryFloor: () => load(`${bareUrl}/v1/library-floor/${tenantId}`, barePids, seconds),
      libraryFloorPublish: () => load(`${bareUrl}/v1/library-floor/${tenantId}?publish=1`, barePids, seconds),
      noTool: () => {
        model.script({ safetyIdentifier: '*', steps: noToolScript, loop: true });
        return load(`${workerUrl}/v1/manychat/${tenantId}`, workerPids, seconds, secret);
      },
      staging: () => {
        model.script({ safetyIdentifier: '*', steps: stagingScript, loop: true });
        return load(`${workerUrl}/v1/manychat/${tenantId}`, workerPids, seconds, secret);
      },
    };
    // Warm-up: every path compiled and every cache filled before anything is counted.
    for (const run of Object.values(scenarios)) await run();
    const results: Record<keyof typeof scenarios, Measured>[] = [];
    const rows: string[][] = [];
    for (let i = 1; i <= rounds; i++) {
      const r = {} as Record<keyof typeof scenarios, Measured>;
      for (const [name, run] of Object.entries(scenarios) as [keyof typeof scenarios, () => Promise<Measured>][])
        r[name] = await run();
      results.push(r);
      rows.push([
        String(i),
        ...(
          ['floor', 'floorLogged', 'floorPublish', 'libraryFloor', 'libraryFloorPublish', 'noTool', 'staging'] as const
        ).map((k) => `${r[k].msPerRequest.toFixed(2)} (${r[k].rps.toFixed(0)}/s)`),
      ]);
    }
    const of = (f: (r: Record<keyof typeof scenarios, Measured>) => number) => results.map(f);
    const figures = {
      aboveFloorNoTool: of((r) => r.noTool.msPerRequest - r.floor.msPerRequest),
      // A staging turn against the floor making its same subrequests (the publish too).
      aboveFloorStaging: of((r) => r.staging.msPerRequest - r.floorPublish.msPerRequest),
      vsFloorNoTool: of((r) => r.noTool.rps / r.floor.rps),
      vsFloorStaging: of((r) => r.staging.rps / r.floorPublish.rps),
      rawPublish: of((r) => r.floorPublish.msPerRequest - r.floor.msPerRequest),
      librariesPublish: of((r) => r.libraryFloorPublish.msPerRequest - r.floorPublish.msPerRequest),
      logLine: of((r) => r.floorLogged.msPerRequest - r.floor.msPerRequest),
      libraries: of((r) => r.libraryFloor.msPerRequest - r.floor.msPerRequest),
      aboveLibraryNoTool: of((r) => r.noTool.msPerRequest - r.libraryFloor.msPerRequest),
      aboveLibraryStaging: of((r) => r.staging.msPerRequest - r.libraryFloorPublish.msPerRequest),
      vsLibraryNoTool: of((r) => r.noTool.rps / r.libraryFloor.rps),
      vsLibraryStaging: of((r) => r.staging.rps / r.libraryFloorPublish.rps),
    };
    console.log(
      `\nUnder Miniflare (workerd ${workerd.version}, ${workerPids.length + barePids.length} processes, the deploy bundles, no inspector), ${seconds} s a scenario, 10 connections, ${rounds} rounds; load average now ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}. workerd CPU ms per request (req/s):`,
    );
    console.log(
      table(
        [
          'round',
          'I/O floor',
          '+ one log line',
          '+ a raw QStash publish',
          'library floor',
          '+ a QStash publish',
          'Worker: no-tool',
          'Worker: staging',
        ],
        rows,
      ),
    );
    console.log('\nMedians of the rounds (spread):');
    console.log(
      table(
        ['figure', 'no-tool', 'staging'],
        [
          ['product above the I/O floor (ms)', spread(figures.aboveFloorNoTool), spread(figures.aboveFloorStaging)],
          ['throughput vs the I/O floor', spread(figures.vsFloorNoTool, 3), spread(figures.vsFloorStaging, 3)],
          ['one log line (ms)', spread(figures.logLine), ''],
          ['a raw QStash publish (ms)', '', spread(figures.rawPublish)],
          ['the fixed libraries above the I/O floor (ms)', spread(figures.libraries), spread(figures.librariesPublish)],
          [
            "the product's own code above the library floor (ms)",
            spread(figures.aboveLibraryNoTool),
            spread(figures.aboveLibraryStaging),
          ],
          ['throughput vs the library floor', spread(figures.vsLibraryNoTool, 3), spread(figures.vsLibraryStaging, 3)],
        ],
      ),
    );
    if (args.json) {
      writeFileSync(resolve(args.json), JSON.stringify({ seconds, rounds, results, figures }, null, 2));
      console.log(`\nJSON: ${resolve(args.json)}`);
    }
    return 0;
  } finally {
    await worker?.dispose();
    await bare.dispose();
    await stack.close();
    await model.close();
    rmSync(bareOut, { recursive: true, force: true });
    rmSync(workerOut, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

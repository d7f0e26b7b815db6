/**
 * `npm run profile` — where a turn's CPU goes. workerd has no per-function CPU profile we can
 * read offline, so this runs the same Worker app (createApp: the Hono routes, the turn, the AI SDK
 * with the real OpenAI provider, guardrails, the @upstash clients) in Node's V8 — the same
 * JavaScript engine — against the local stack in a child process (so the stand-ins' CPU stays out
 * of the profile), and profiles it with the V8 sampling profiler (node:inspector).
 *
 *   npm run profile -- [--turns N (default 400)] [--kind staging|no-tool] [--top N (default 15)]
 *
 * Prints CPU ms per turn (this process ÷ turns), the functions with the most self time, self time
 * by package, and the inclusive time of the turn's named stages.
 */
import { spawn } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { DEMO_TENANT_ID, DEMO_WEBHOOK_SECRET } from '../dev/demo-tenant.js';
import { startModelSandbox, type ScriptStep } from '../dev/model-sandbox.js';
import { DEV_UPSTASH_TOKEN, ROOT, seedDemoTenant, startLocalStack } from '../dev/stack.js';
import { table } from './stats.js';

const READY = 'PROFILE_READY ';

const reply = { text: 'Sending you the brochure now.', escalate: false, confidence: 0.9, reason: 'asked for it' };
const STEPS: Record<'staging' | 'no-tool', ScriptStep[]> = {
  staging: [{ calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply, latencyMs: 0 }],
  'no-tool': [{ reply: { ...reply, text: 'Hello! How can I help?' }, latencyMs: 0 }],
};

// ---- child: the stack -------------------------------------------------------------------------------

async function serve(kind: keyof typeof STEPS): Promise<void> {
  const model = await startModelSandbox({ recordBodies: false, maxRecorded: 100 });
  model.script({ safetyIdentifier: '*', steps: [...STEPS[kind]], loop: true });
  const stack = await startLocalStack({
    withWorker: false,
    stateDir: join(ROOT, '.local', 'profile'),
    manychatRateLimits: false,
  });
  await seedDemoTenant(stack.upstash.url, DEV_UPSTASH_TOKEN);
  const stop = async () => {
    await stack.close();
    await model.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  const env = {
    ...stack.workerEnv,
    OPENAI_API_KEY: 'sandbox',
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_MODE: 'chat',
  };
  process.stdout.write(`${READY}${JSON.stringify(env)}\n`);
}

// ---- parent: the app, profiled ---------------------------------------------------------------------

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: a package, the app's own folder, or the runtime. */
function ownerOf(url: string): string {
  if (!url) return '(runtime: GC, native, idle)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node (http client, streams, crypto)';
  const own = /\/(core|tools|guardrails|outbox|src|dev|evals)\//.exec(url);
  return own ? `${own[1]}/` : url;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url
    .replace(/^.*node_modules\//, '')
    .replace(/^file:\/\/.*?\/(core|tools|guardrails|outbox|src|dev|evals)\//, '$1/');
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
}

function analyse(profile: Profile, turns: number, top: number, stages: string[]): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const idle = new Set(
    profile.nodes.filter((n) => ['(idle)', '(program)'].includes(n.callFrame.functionName)).map((n) => n.id),
  );
  const busyUs = [...selfUs].filter(([id]) => !idle.has(id)).reduce((a, [, us]) => a + us, 0);
  const perTurn = (us: number) => (us / 1000 / turns).toFixed(3);

  const byFrame = new Map<string, number>();
  const byOwner = new Map<string, number>();
  for (const [id, us] of selfUs) {
    if (idle.has(id)) continue;
    const node = byId.get(id)!;
    byFrame.set(frameName(node), (byFrame.get(frameName(node)) ?? 0) + us);
    const owner = ownerOf(node.callFrame.url);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
  }
  // Inclusive time of a named function: its subtree's samples, counted once under the outermost match.
  const inclusive = (name: string) => {
    let us = 0;
    profile.samples.forEach((leaf, i) => {
      for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
        if (byId.get(id)!.callFrame.functionName === name) {
          us += profile.timeDeltas[i] ?? 0;
          break;
        }
      }
    });
    return us;
  };
  const sorted = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `Sampled CPU (not idle): ${(busyUs / 1000).toFixed(0)} ms over ${turns} turns = ${perTurn(busyUs)} ms a turn`,
    '',
    `Self time by function (top ${top}):`,
    table(
      ['function', 'ms / turn', 'share'],
      sorted(byFrame, top).map(([f, us]) => [f.slice(0, 110), perTurn(us), `${((100 * us) / busyUs).toFixed(1)} %`]),
    ),
    '',
    'Self time by where the code lives:',
    table(
      ['owner', 'ms / turn', 'share'],
      sorted(byOwner, 20).map(([o, us]) => [o, perTurn(us), `${((100 * us) / busyUs).toFixed(1)} %`]),
    ),
    '',
    "Inclusive time of the turn's stages (a function and everything it called):",
    table(
      ['function', 'ms / turn', 'share'],
      stages.map((s) => [s, perTurn(inclusive(s)), `${((100 * inclusive(s)) / busyUs).toFixed(1)} %`]),
    ),
  ].join('\n');
}

const STAGES = [
  'runManyChatTurn',
  'authenticateManyChatWebhook',
  'startTurn',
  'handleInbound',
  'runTurnLoop',
  'buildTurnTools',
  'buildInstructions',
  'generateText',
  'judgeTurn',
  'commitTurn',
  'parseTenantConfig',
  'deliveryKeyDigest',
  'sha256Hex',
];

async function main(): Promise<number> {
  const args = parseArgs({
    options: {
      turns: { type: 'string' },
      kind: { type: 'string' },
      top: { type: 'string' },
      serve: { type: 'string' },
    },
  }).values;
  const kind = (args.kind ?? args.serve ?? 'staging') as keyof typeof STEPS;
  if (!(kind in STEPS)) {
    console.error('--kind must be staging or no-tool');
    return 2;
  }
  if (args.serve) {
    await serve(kind);
    return -1;
  }
  const turns = Number(args.turns ?? 400);
  const top = Number(args.top ?? 15);
  if (!(Number.isInteger(turns) && turns >= 20 && turns <= 20_000)) {
    console.error('--turns must be an integer in 20..20000');
    return 2;
  }
  const child = spawn(
    join(ROOT, 'node_modules', '.bin', 'tsx'),
    [join(ROOT, 'evals', 'profile-turn.ts'), '--serve', kind],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const env = await new Promise<Record<string, string>>((resolveEnv, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.startsWith(READY)) resolveEnv(JSON.parse(line.slice(READY.length)) as Record<string, string>);
      });
      child.once('exit', (code) => reject(new Error(`the stack process exited (${code})`)));
    });
    const { createApp } = await import('../src/app.js');
    // Deliveries are not this turn's CPU (the outbox runs as its own request): publish nowhere.
    const app = createApp((s) => ({ ...s, publisher: () => ({ publish: async () => {} }) }));
    let n = 0;
    const turn = async () => {
      const res = await app.fetch(
        new Request(`http://profile/v1/manychat/${DEMO_TENANT_ID}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-staged-agent-secret': DEMO_WEBHOOK_SECRET },
          body: JSON.stringify({
            contact: { id: String(4_000_000_000 + n++), first_name: 'Profile' },
            text: 'Hello! Can you send me the brochure?',
            message_key: `profile-${Date.now()}-${n}`,
          }),
        }),
        env,
      );
      await res.text();
      if (res.status !== 200) throw new Error(`a turn answered ${res.status}`);
    };
    console.log(
      `profile: ${turns} ${kind} turns, one at a time, after 50 warm-up turns (Node ${process.version}, V8 sampling profiler)`,
    );
    for (let i = 0; i < 50; i++) await turn();
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await session.post('Profiler.start');
    for (let i = 0; i < turns; i++) await turn();
    const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    session.disconnect();
    console.log(
      `\nCPU of this process: ${((cpu.user + cpu.system) / 1000 / turns).toFixed(2)} ms a turn (user + system, profiler overhead included); wall ${(wall / turns).toFixed(1)} ms a turn`,
    );
    console.log(analyse(profile, turns, top, STAGES));
    return 0;
  } finally {
    child.kill('SIGTERM');
  }
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    console.error(`profile failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);

/**
 * `npm run profile:workerd` — where a turn's CPU goes in workerd itself (the runtime the bench
 * measures), not in Node. It starts the bench's stack (the Worker under `wrangler dev`, the
 * zero-latency model sandbox), loads the webhook with no-tool or staging turns, and reads a V8 CPU
 * profile through the Worker's inspector (the Chrome DevTools protocol wrangler dev serves). The
 * bundle wrangler built is read back to name which source file each sampled function came from
 * (esbuild marks each module's section with a `// path` comment).
 *
 *   npm run profile:workerd -- [--kind no-tool|staging] [--seconds S (default 10)] [--top N (default 25)] [--save FILE.cpuprofile]
 *
 * The profiler samples every 100 µs and the inspector session is itself work for workerd, so the
 * per-turn figures are the shares of a slightly slowed runtime: read them as where the time goes,
 * and `npm run bench` for how much there is. With a DevTools session attached, a console line
 * costs what it costs under an inspector (V8 reports each one to the session).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from '../dev/redis-server.js';
import { ROOT } from '../dev/stack.js';
import { script, startBenchStack } from './bench-stack.js';
import { table } from './stats.js';
import { saveBenchTenant } from './bench-tenant.js';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; scriptId: string };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const reply = { text: 'Hello! How can I help?', escalate: false, confidence: 0.9, reason: 'profile' };
const STEPS = {
  'no-tool': [{ reply, latencyMs: 0 }],
  staging: [
    {
      calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
      reply: { ...reply, text: 'Sending it now.' },
      latencyMs: 0,
    },
  ],
} as const;

/** A CDP client over the inspector's WebSocket (Node 22's global WebSocket). */
async function inspector(
  port: number,
): Promise<{ send: (method: string, params?: object) => Promise<unknown>; close: () => void }> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as {
    webSocketDebuggerUrl: string;
    title?: string;
  }[];
  const target = targets.find((t) => !/proxy/i.test(t.title ?? '')) ?? targets[0];
  if (!target) throw new Error(`no inspector target on port ${port}`);
  // The inspector proxy refuses a client with no Origin (miniflare's DNS-rebinding check).
  const ws = new WebSocket(target.webSocketDebuggerUrl, {
    headers: { origin: 'http://localhost' },
  } as unknown as string[]);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', reject, { once: true });
  });
  let next = 0;
  const pending = new Map<number, (v: unknown) => void>();
  ws.addEventListener('message', (e) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: unknown };
    if (msg.id !== undefined)
      pending.get(msg.id)?.(msg.error ? Promise.reject(new Error(JSON.stringify(msg.error))) : msg.result);
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        const id = ++next;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/** Line → source file of the bundle, from esbuild's `// path/to/file.ts` section comments. */
export function sectionsOf(bundle: string): (line: number) => string {
  const starts: [number, string][] = [];
  bundle.split('\n').forEach((l, i) => {
    const m = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(l);
    if (m) starts.push([i, m[1]!.replace(/^.*node_modules\//, '')]);
  });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = '(bundle prelude)';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]![0] <= line) {
        found = starts[mid]![1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

const PRODUCT_FOLDERS = new Set(['core/', 'tools/', 'guardrails/', 'outbox/', 'src/']);

export function ownerOf(file: string): string {
  if (file.startsWith('(')) return file;
  const pkg = /^(?:\.pnpm\/)?((?:@[^/]+\/)?[^/]+)\//.exec(file);
  const own = /^(?:\.\.\/)*(core|tools|guardrails|outbox|src)\//.exec(file);
  if (own) return `${own[1]}/`;
  return pkg ? pkg[1]! : file;
}

/**
 * Self time per function, per product function and per owner (a package, a product folder, or the
 * runtime's own builtins) for `turns` turns. `section` names the source file of a bundle line.
 */
export function analyseWorkerdProfile(
  profile: Profile,
  bundleUrl: string | undefined,
  section: (line: number) => string,
  turns: number,
  top: number,
): string {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFrame = new Map<string, number>();
  const byOwner = new Map<string, number>();
  const own = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (!us || node.callFrame.functionName === '(idle)') continue;
    busy += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url === bundleUrl ? section(lineNumber) : url ? url : `(${functionName || 'native'})`;
    const name = `${functionName || '(anonymous)'} ${file}`;
    byFrame.set(name, (byFrame.get(name) ?? 0) + us);
    const owner = url === bundleUrl ? ownerOf(file) : `(${functionName || 'runtime'})`;
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
    if (PRODUCT_FOLDERS.has(owner)) own.set(name, (own.get(name) ?? 0) + us);
  }
  const per = (us: number) => (us / 1000 / turns).toFixed(3);
  const sorted = (m: Map<string, number>, k: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k);
  const out: string[] = [`sampled JS-thread time (not idle): ${per(busy)} ms a turn`];
  out.push(`\nSelf time by function (top ${top}):`);
  out.push(
    table(
      ['function', 'ms / turn', 'share'],
      sorted(byFrame, top).map(([f, us]) => [f.slice(0, 110), per(us), `${((100 * us) / busy).toFixed(1)} %`]),
    ),
  );
  out.push(`\nSelf time of the product's own functions (top ${top}):`);
  out.push(
    table(
      ['function', 'ms / turn', 'share'],
      sorted(own, top).map(([f, us]) => [f.slice(0, 110), per(us), `${((100 * us) / busy).toFixed(1)} %`]),
    ),
  );
  out.push('\nSelf time by where the code lives:');
  out.push(
    table(
      ['owner', 'ms / turn', 'share'],
      sorted(byOwner, 25).map(([o, us]) => [o, per(us), `${((100 * us) / busy).toFixed(1)} %`]),
    ),
  );
  return out.join('\n');
}

async function main(): Promise<number> {
  const args = parseArgs({
    options: {
      kind: { type: 'string' },
      seconds: { type: 'string' },
      top: { type: 'string' },
      save: { type: 'string' },
    },
  }).values;
  const kind = (args.kind ?? 'no-tool') as keyof typeof STEPS;
  if (!(kind in STEPS)) {
    console.error('--kind must be no-tool or staging');
    return 2;
  }
  const seconds = Number(args.seconds ?? 10);
  const top = Number(args.top ?? 25);
  if (!(seconds >= 1 && seconds <= 120 && Number.isInteger(top) && top >= 1 && top <= 200)) {
    console.error('--seconds must be 1..120 and --top 1..200');
    return 2;
  }
  const port = await freePort();
  const stack = await startBenchStack({
    bare: false,
    stateDir: join(ROOT, '.local', 'profile-workerd'),
    inspectorPort: port,
  });
  try {
    const { facts } = stack;
    const { tenantId, secret } = await saveBenchTenant(facts.upstash, 'prof');
    await script(facts.modelUrl, [...STEPS[kind]]);
    let n = 0;
    const base = Date.now() * 1000;
    const load = (duration: number) =>
      autocannon({
        url: `${facts.workerUrl}/v1/manychat/${tenantId}`,
        connections: 10,
        duration,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-staged-agent-secret': secret },
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({
                contact: { id: String(base + ++n), first_name: 'Bench' },
                text: 'Hello! Can you send me the brochure?',
                message_key: `prof-${base}-${n}`,
              }),
            }),
          },
        ],
      });
    // As in the bench: QStash holds the staged actions' deliveries, so only turns load the Worker.
    await fetch(`${facts.qstashUrl}/__dev/pause`, { method: 'POST' });
    await load(3);
    const cdp = await inspector(port);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    const result = await load(seconds);
    const { profile } = (await cdp.send('Profiler.stop')) as { profile: Profile };
    const turns = result['2xx'];
    // The bundle wrangler built (its temp dir is gone when it stops): read back through the debugger.
    const bundleNode = profile.nodes.find((n) => /index\.js$/.test(n.callFrame.url));
    const bundleUrl = bundleNode?.callFrame.url;
    let section = (_line: number) => '(unknown)';
    if (bundleNode) {
      await cdp.send('Debugger.enable');
      const { scriptSource } = (await cdp.send('Debugger.getScriptSource', {
        scriptId: bundleNode.callFrame.scriptId,
      })) as {
        scriptSource: string;
      };
      section = sectionsOf(scriptSource);
    }
    cdp.close();
    // The raw profile opens in Chrome DevTools (Performance → load) or any .cpuprofile viewer.
    if (args.save) writeFileSync(args.save, JSON.stringify(profile));
    console.log(`\n${kind}: ${turns} turns in ${seconds} s`);
    console.log(analyseWorkerdProfile(profile, bundleUrl, section, turns, top));
    return 0;
  } finally {
    await stack.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );

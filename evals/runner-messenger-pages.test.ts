import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaseFormatError, parseCase } from './case-format.js';
import { startEvalEnvironment, type EvalEnvironment } from './environment.js';
import { runEval, type EvalRun } from './runner.js';

/**
 * Messenger cases with more than one tenant (issue 31): a case declares extra tenants (`tenants`),
 * puts them on one Meta app (`messengerApp`), and a turn names the tenant whose page the contact
 * writes to (`tenant`), the page the entry names (`page`) and the URL (`via`). The runner must
 * fail a turn another tenant claimed, and an `ignored` event that ran; a `notify` tenant's
 * notifications and a `release` turn are observed.
 */
const reply = (text: string, extra: Record<string, unknown> = {}) => ({ text, ...extra });
const twoTenants = {
  channel: 'messenger',
  messengerApp: true,
  tenants: { b: { overrides: { persona: 'You are the assistant of Tenant B Bakery.' } } },
};
const cases: Record<string, unknown> = {
  'two-tenants.json': {
    ...twoTenants,
    turns: [
      {
        text: 'Hi A',
        via: 'app',
        model: [{ reply: reply('Hello from A'), latencyMs: 0 }],
        expect: { decision: 'pass', promptContains: ['Sunrise Yoga'], performed: [{ call: 'sendContent' }] },
      },
      {
        text: 'Hi B',
        tenant: 'b',
        contact: 'other',
        via: 'app',
        model: [{ reply: reply('Hello from B'), latencyMs: 0 }],
        expect: { decision: 'pass', promptContains: ['Tenant B Bakery'], performed: [{ call: 'sendContent' }] },
      },
    ],
  },
  // Wrong on purpose: B's page answered by B, but the case says A's contact writes there and it is ignored.
  'claimed-by-the-other.json': {
    ...twoTenants,
    turns: [
      {
        text: 'Hi B',
        page: 'b',
        via: 'app',
        model: [{ reply: reply('Hello from B'), latencyMs: 0 }],
        expect: { ignored: true },
      },
    ],
  },
  'escalate-notify-release.json': {
    channel: 'messenger',
    tenant: { notify: 'standard' },
    turns: [
      {
        text: 'A person please',
        model: [{ reply: reply('Getting someone.', { escalate: true, reason: 'wants a person' }), latencyMs: 0 }],
        expect: { decision: 'escalate', notifications: [{ type: 'handoff.requested', contains: ['wants a person'] }] },
      },
      { release: true, expect: { status: 200, performed: [{ call: 'takeThreadControl' }] } },
    ],
  },
};

let dir: string;
let env: EvalEnvironment;
let run: EvalRun;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'staged-agent-eval-pages-'));
  for (const [name, body] of Object.entries(cases)) await writeFile(join(dir, name), JSON.stringify(body));
  env = await startEvalEnvironment();
  run = await runEval({ casesDir: dir, environment: env, concurrency: 3, warmup: false });
}, 120_000);

afterAll(async () => {
  await env?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const result = (name: string) => run.results.find((r) => r.name === name)!;

describe('Messenger cases of several tenants, through the real Worker', () => {
  it("answers each page's contact as its own tenant, in its own tenant's log", () => {
    const r = result('two-tenants');
    expect(r.failures).toEqual([]);
    expect(r.turns.map((t) => t.replyText)).toEqual(['Hello from A', 'Hello from B']);
  });

  it('fails an event the case says is ignored when a tenant claimed it, naming that tenant', () => {
    const r = result('claimed-by-the-other');
    expect(r.passed).toBe(false);
    expect(r.failures.join('\n')).toMatch(/tenant "b" \(ev-[^)]+\) claimed mid .* the event is not its own/);
    expect(r.failures.join('\n')).toContain('ignored: expected no model call, got 1');
  });

  it("reads the tenant's notifications and performs a release (the thread taken back)", () => {
    const r = result('escalate-notify-release');
    expect(r.failures).toEqual([]);
    expect(r.turns[1]!.kind).toBe('tenant-decision');
    expect(r.turns[1]!.performed.map((c) => c.call)).toEqual(['takeThreadControl']);
  });
});

describe('the case format for several tenants', () => {
  const parse = (raw: unknown) => () => parseCase(raw, 'x.json');
  it('refuses a turn naming a tenant or page the case does not declare, and via app without messengerApp', () => {
    expect(parse({ channel: 'messenger', turns: [{ text: 'hi', tenant: 'nope' }] })).toThrow('no case tenant "nope"');
    expect(parse({ channel: 'messenger', turns: [{ text: 'hi', page: 'zzz' }] })).toThrow('"unowned" or a case tenant');
    expect(parse({ channel: 'messenger', turns: [{ text: 'hi', via: 'app' }] })).toThrow(
      "needs the case's messengerApp",
    );
    expect(parse({ channel: 'messenger', tenants: { main: {} }, turns: [{ text: 'hi' }] })).toThrow(CaseFormatError);
  });
  it('keeps tenants, pages and release turns to Messenger cases', () => {
    expect(parse({ tenants: { b: {} }, turns: [{ text: 'hi' }] })).toThrow('more tenants are for Messenger cases');
    expect(parse({ turns: [{ release: true }] })).toThrow('a release turn is for Messenger cases');
    expect(parse({ turns: [{ text: 'hi', page: 'unowned' }] })).toThrow('tenant, page and via are for Messenger');
    const ok = parseCase(
      {
        channel: 'messenger',
        messengerApp: true,
        tenants: { b: {} },
        turns: [{ text: 'hi', tenant: 'b', via: 'app' }],
      },
      'ok.json',
    );
    expect(ok.turns[0]).toMatchObject({ tenant: 'b', via: 'app' });
  });
});

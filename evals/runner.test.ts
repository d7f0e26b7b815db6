import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvalEnvironment, type EvalEnvironment } from './environment.js';
import { renderSvg, renderTable } from './report.js';
import { NoCasesSelected, runEval, type EvalRun } from './runner.js';

/**
 * Runs six cases through the real runner, the real Worker (wrangler dev) and the model sandbox,
 * from a directory outside the repo, among them a Yes press and a tenant approval. Two cases have
 * a wrong expectation on purpose: the runner must say which expectation failed and what happened
 * instead.
 */
const reply = (text: string) => ({ text });
const cases: Record<string, unknown> = {
  'greeting.json': {
    turns: [
      {
        text: 'Hello!',
        model: [{ reply: reply('Hi! How can I help?'), latencyMs: 0 }],
        expect: { decision: 'pass', replyContains: ['how can I help'], committed: [], performed: [], modelCalls: 1 },
      },
    ],
  },
  'brochure.json': {
    turns: [
      {
        text: 'Send me the brochure please',
        model: [
          {
            calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
            reply: reply('The brochure is on its way.'),
            latencyMs: 0,
          },
        ],
        expect: {
          decision: 'pass',
          committed: [{ kind: 'send_flow', args: { flowName: 'brochure' } }],
          performed: [{ call: 'sendFlow', flow: 'brochure' }],
          modelCalls: 1,
        },
      },
    ],
  },
  'duplicates.json': {
    tenant: { overrides: { guardrails: { rateLimit: { contactPerMinute: 100 } } } },
    turns: [
      {
        text: 'Hi there',
        deliveries: { count: 3, mode: 'concurrent' },
        model: [{ reply: reply('Hello!'), latencyMs: 200 }],
        expect: { decision: 'pass', distinctTurns: 1, duplicates: 2, sameReply: true, modelCalls: 1 },
      },
    ],
  },
  'wrong-expectation.json': {
    description: 'The model sends the brochure; the case wrongly expects the timetable.',
    baseline: false,
    turns: [
      {
        text: 'Send me the brochure please',
        model: [
          {
            calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
            reply: reply('The brochure is on its way.'),
            latencyMs: 0,
          },
        ],
        expect: {
          decision: 'pass',
          committed: [{ kind: 'send_flow', args: { flowName: 'timetable' } }],
          modelCalls: 1,
        },
      },
    ],
  },
  'press-and-approve.json': {
    turns: [
      {
        text: 'I prefer pilates',
        model: [
          {
            calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } }],
            reply: reply('Shall I note pilates?'),
            latencyMs: 0,
          },
        ],
        expect: {
          committed: [],
          performed: [],
          pending: [{ kind: 'confirmation', tool: 'record_choice', args: { value: 'pilates' }, as: 'choice' }],
        },
      },
      {
        press: 'Yes',
        expect: {
          performed: [{ call: 'setField', field: 'preferred_class', value: 'pilates' }],
          rows: { choice: 'confirmed' },
        },
      },
      {
        text: 'Please remove the interested tag',
        model: [
          {
            calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
            reply: reply('A teammate will review that.'),
            latencyMs: 0,
          },
        ],
        expect: {
          performed: [],
          pending: [{ kind: 'approval', tool: 'untag_contact', args: { tag: 'interested' }, expiresIn: '1h' }],
        },
      },
      {
        approve: true,
        deliveries: { count: 2, mode: 'concurrent' },
        expect: { statuses: [200, 409], performed: [{ call: 'removeTag', tag: 'interested' }] },
      },
    ],
  },
  'wrong-pending.json': {
    description: 'The destructive untag waits for an approval; the case wrongly expects a confirmation.',
    baseline: false,
    turns: [
      {
        text: 'Please remove the interested tag',
        model: [
          {
            calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
            reply: reply('A teammate will review that.'),
            latencyMs: 0,
          },
        ],
        expect: { pending: [{ kind: 'confirmation', tool: 'untag_contact' }] },
      },
    ],
  },
};

let dir: string;
let env: EvalEnvironment;
let run: EvalRun;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'staged-agent-eval-cases-'));
  for (const [name, body] of Object.entries(cases)) await writeFile(join(dir, name), JSON.stringify(body));
  env = await startEvalEnvironment();
  run = await runEval({ casesDir: dir, environment: env, concurrency: 4 });
}, 120_000);

afterAll(async () => {
  await env?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const result = (name: string) => run.results.find((r) => r.name === name)!;

describe('the eval runner, end to end through the real Worker', () => {
  it('a --filter that selects no case is an error naming the filter, not a green run', async () => {
    const refused = runEval({ casesDir: dir, environment: env, filter: 'no-such-case' });
    await expect(refused).rejects.toBeInstanceOf(NoCasesSelected);
    await expect(refused).rejects.toThrow('--filter "no-such-case" matches no case in');
  });

  it('passes the cases whose expectations hold', () => {
    for (const name of ['greeting', 'brochure', 'duplicates', 'press-and-approve']) {
      expect(result(name).failures, name).toEqual([]);
      expect(result(name).passed).toBe(true);
    }
    expect(run.workerErrors).toEqual([]);
  });

  it('performs the committed flow through the outbox and sees it in the ManyChat sandbox', () => {
    const turn = result('brochure').turns[0]!;
    expect(turn.performed.map((c) => [c.call, c.flow])).toEqual([['sendFlow', 'brochure']]);
    expect(turn.kind).toBe('staging-only');
    expect(turn.record?.redisRoundTrips.beforeModel).toBeGreaterThan(0);
  });

  it('reports a failing expectation: which one, what was expected and what happened', () => {
    const r = result('wrong-expectation');
    expect(r.passed).toBe(false);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]).toContain('turn 1: committed: expected [send_flow{"flowName":"timetable"}]');
    expect(r.failures[0]).toContain('"flowName":"brochure"');
    expect(run.summary.correctness).toMatchObject({ cases: 6, passed: 4, failed: 2 });
    expect([...run.summary.correctness.failedNames].sort()).toEqual(['wrong-expectation', 'wrong-pending']);
  });

  it('presses the signed Yes and approves through the tenant API: each pinned call performed once', () => {
    const [, press, , approve] = result('press-and-approve').turns;
    expect(press!.kind).toBe('button-press');
    expect(press!.performed.map((c) => [c.call, c.field, c.value])).toEqual([
      ['setField', 'preferred_class', 'pilates'],
    ]);
    expect(approve!.kind).toBe('tenant-decision');
    expect(approve!.deliveries.map((d) => d.status).sort()).toEqual([200, 409]);
    expect(approve!.performed.map((c) => [c.call, c.tag])).toEqual([['removeTag', 'interested']]);
  });

  it('reports a wrong pending expectation with the row that was created', () => {
    const r = result('wrong-pending');
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]).toContain(
      'turn 1: pending: expected [confirmation untag_contact, with an expiry], got [approval untag_contact{"tag":"interested"} pending, expires in 60 min]',
    );
  });

  it('runs the naive two-step variant of a staging-only case: same outcome, two model calls', () => {
    const naive = run.results.find((r) => r.variant === 'naive-2-step' && r.name === 'brochure~naive')!;
    expect(naive.passed).toBe(true);
    expect(naive.turns[0]!.modelCalls).toBe(2);
    expect(naive.turns[0]!.performed.map((c) => c.flow)).toEqual(['brochure']);
    expect(run.results.some((r) => r.name === 'wrong-expectation~naive')).toBe(false);
  });

  it('summarizes per turn kind and renders the table and the SVG', () => {
    const table = renderTable(run.summary, { deadlineMs: 8000, preset: 'gpt-4.1-mini', live: false });
    expect(table).toContain('staging only');
    expect(table).toContain('Correctness: 4/6 cases passed, 2 failed');
    expect(table).toContain('Yes/No press (no model)');
    expect(run.summary.overhead.n).toBeGreaterThan(0);
    const svg = renderSvg(run.summary, { deadlineMs: 8000, title: 'test' });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('</svg>');
  });
});

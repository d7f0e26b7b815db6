import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../dev/stack.js';
import { CaseFormatError, deepMerge, loadCases, parseCase, replyInput } from './case-format.js';
import { estimate } from './estimate.js';
import { checkExpectation, type Observed } from './expectations.js';
import { naiveVariant } from './runner.js';
import { readToolNames, scriptKind } from './turn-kind.js';
import { demoTenantConfig } from '../dev/demo-tenant.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';

const casesDir = join(ROOT, 'evals', 'cases');

describe('the eval cases in evals/cases', () => {
  it('are at least 40, all valid, with unique names, covering every area', async () => {
    const cases = await loadCases(casesDir);
    expect(cases.length).toBeGreaterThanOrEqual(40);
    const areas = new Set(cases.map((c) => c.file.split('/').at(-2)));
    for (const area of [
      'plain',
      'staging',
      'read',
      'veto',
      'escalate',
      'denied',
      'duplicates',
      'faults',
      'model-errors',
      'deadline',
      'confirm',
      'approve',
    ])
      expect(areas).toContain(area);
  });

  it('cover confirmations and approvals with at least 15 cases of presses and tenant decisions', async () => {
    const cases = (await loadCases(casesDir)).filter((c) => ['confirm', 'approve'].includes(c.file.split('/').at(-2)!));
    expect(cases.length).toBeGreaterThanOrEqual(15);
    const turns = cases.flatMap((c) => c.turns);
    for (const form of ['press', 'approve', 'reject', 'expire'] as const)
      expect(
        turns.some((t) => t[form] !== undefined),
        form,
      ).toBe(true);
    expect(turns.some((t) => t.tamper)).toBe(true);
  });

  it('have naive two-step variants for the staging-only ones', async () => {
    const cases = await loadCases(casesDir);
    const brochure = cases.find((c) => c.name === 'flow-brochure')!;
    const naive = naiveVariant(brochure)!;
    expect(naive.turns[0]!.model).toHaveLength(2);
    expect(naive.turns[0]!.model[0]!.reply).toBeUndefined();
    expect(naive.turns[0]!.model[1]!.reply).toBeDefined();
    expect(naive.turns[0]!.expect.modelCalls).toBe(2);
    expect(naiveVariant(cases.find((c) => c.name === 'faq-hours')!)).toBeNull();
  });

  it('estimate offline without a stack', async () => {
    const e = await estimate({ casesDir, draws: 300 });
    expect(e.rows.find((r) => r.kind === 'staging-only')!.turns).toBeGreaterThan(5);
    expect(e.ratio.naive).toBeGreaterThan(e.ratio.ours);
    expect(e.overall.pastDeadline / e.overall.samples).toBeLessThan(0.2);
  });
});

describe('case format', () => {
  it('names the file and the field that is wrong', () => {
    expect(() => parseCase({ turns: [{ text: 'hi', model: [{ latencyMs: -5 }] }] }, 'bad.json')).toThrow(
      CaseFormatError,
    );
    try {
      parseCase({ turns: [{ text: 'hi', expect: { decison: 'pass' } }] }, 'typo.json');
    } catch (err) {
      expect(String(err)).toContain('typo.json');
      expect(String(err)).toContain('turns.0.expect');
    }
  });

  it('a case may target the Messenger channel: text and release turns only, no ManyChat template fields; no naive variant', () => {
    const c = parseCase(
      { channel: 'messenger', turns: [{ text: 'hi', messageKey: 'm_1', lastInteraction: '-30h' }] },
      'm.json',
    );
    expect(c.channel).toBe('messenger');
    expect(parseCase({ turns: [{ text: 'hi' }] }, 'd.json').channel).toBe('manychat');
    expect(() => parseCase({ channel: 'messenger', turns: [{ press: 'Yes' }] }, 'p.json')).toThrow(
      /text, release and reconfigure turns only/,
    );
    expect(() => parseCase({ channel: 'messenger', turns: [{ text: 'hi', body: 'bare' }] }, 'b.json')).toThrow(
      /request-template fields/,
    );
    expect(() => parseCase({ channel: 'sms', turns: [{ text: 'hi' }] }, 's.json')).toThrow(CaseFormatError);
    const staging = parseCase(
      {
        channel: 'messenger',
        turns: [
          {
            text: 'brochure',
            model: [{ calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: { text: 'ok' } }],
          },
        ],
      },
      'n.json',
    );
    expect(naiveVariant(staging)).toBeNull();
  });

  it('a reconfigure turn is a tenant config change: a turn of its own, with no model steps and no message fields', () => {
    const c = parseCase(
      { turns: [{ text: 'hi' }, { reconfigure: { manifest: { record_choice: { approval: 'pinned' } } } }] },
      'r.json',
    );
    expect(c.turns[1]!.reconfigure).toEqual({ manifest: { record_choice: { approval: 'pinned' } } });
    expect(() => parseCase({ turns: [{ reconfigure: {}, text: 'hi' }] }, 'two.json')).toThrow(
      /not text and reconfigure/,
    );
    expect(() => parseCase({ turns: [{ reconfigure: {}, model: [{ reply: { text: 'x' } }] }] }, 'model.json')).toThrow(
      /no model call/,
    );
    expect(() => parseCase({ turns: [{ reconfigure: {}, messageKey: 'k' }] }, 'key.json')).toThrow(
      /only for a text turn/,
    );
    expect(parseCase({ channel: 'messenger', turns: [{ reconfigure: { tags: [] } }] }, 'm.json').turns).toHaveLength(1);
  });

  it('fills reply defaults and deep-merges overrides (null removes)', () => {
    expect(replyInput({ reply: { text: 'x' } })).toEqual({
      text: 'x',
      escalate: false,
      confidence: 0.9,
      reason: 'scripted',
    });
    expect(replyInput({ replyRaw: { text: 'x' } })).toEqual({ text: 'x' });
    expect(deepMerge({ a: { b: 1, c: 2 }, d: [1] }, { a: { c: 3, b: null }, d: [2] })).toEqual({ a: { c: 3 }, d: [2] });
  });

  it('classifies scripts by turn kind', () => {
    const reads = readToolNames(demoTenantConfig('t') as TenantConfig);
    const reply = { text: 'ok' };
    expect(scriptKind({ model: [{ reply }] }, reads)).toBe('no-tool');
    expect(scriptKind({ model: [{ calls: [{ tool: 'send_media', input: {} }], reply }] }, reads)).toBe('staging-only');
    expect(scriptKind({ model: [{ calls: [{ tool: 'search_faq', input: {} }] }, { reply }] }, reads)).toBe(
      'read-then-reply',
    );
    expect(scriptKind({ model: [{ error: { status: 500, message: 'x' } }] }, reads)).toBeNull();
  });
});

describe('expectations', () => {
  const observed = (over: Partial<Observed> = {}): Observed => ({
    deliveries: [{ status: 200, ms: 10, turnId: 't1', duplicateOf: null, deferred: false, replyText: 'Hello' }],
    decision: 'pass',
    decisionReason: 'every guardrail passed',
    replyText: 'Hello',
    deferred: false,
    staged: [{ kind: 'send_flow', tool: 'send_media', args: { flowName: 'brochure', flowNs: 'ns1' } }],
    committed: [{ kind: 'send_flow', tool: 'send_media', args: { flowName: 'brochure', flowNs: 'ns1' } }],
    performed: [{ call: 'sendFlow', path: '/fb/sending/sendFlow', status: 200, outcome: 'ok', flow: 'brochure' }],
    apiCalls: [{ call: 'sendFlow', path: '/fb/sending/sendFlow', status: 200, outcome: 'ok', flow: 'brochure' }],
    pending: [],
    rows: {},
    modelCalls: 1,
    lastPrompt: '[{"role":"user"}]',
    ...over,
  });

  it('passes when everything given holds (key args only)', () => {
    expect(
      checkExpectation(
        {
          decision: 'pass',
          committed: [{ kind: 'send_flow', args: { flowName: 'brochure' } }],
          performed: [{ call: 'sendFlow', flow: 'brochure' }],
          modelCalls: 1,
          replyContains: ['hello'],
        },
        observed(),
      ),
    ).toEqual([]);
  });

  it('says which expectation failed, what was expected and what happened', () => {
    const f = checkExpectation({ decision: 'veto', performed: [], apiCalls: 2 }, observed());
    expect(f).toEqual([
      'decision: expected veto, got pass',
      'performed: expected [], got [sendFlow(brochure) 200]',
      'apiCalls: expected 2 ManyChat calls for the contact, got 1 [sendFlow(brochure) 200]',
    ]);
  });

  it('anyOf passes when one alternative holds and lists all when none does', () => {
    expect(checkExpectation({ anyOf: [{ deferred: true }, { decision: 'pass' }] }, observed())).toEqual([]);
    const f = checkExpectation({ anyOf: [{ deferred: true }, { decision: 'error' }] }, observed());
    expect(f[0]).toContain('none of 2 alternatives held');
    expect(f[0]).toContain('deferred: expected true, got false');
  });
});

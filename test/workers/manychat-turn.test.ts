import { describe, expect, it } from 'vitest';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant } from '../support/workers-env.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { defaultGuardrails } from '../../guardrails/default-guardrails.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

const brochureSteps = () => [
  { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Sending you the brochure now.') },
];

async function sendBrochureTurn(app: ReturnType<typeof appWith>, text = 'Can you send me the brochure?') {
  const { tenantId, secret } = await seedTenant();
  const contactId = await newContact();
  const res = await app.post(tenantId, secret, { contact: { id: contactId, first_name: 'Ada' }, text });
  const turnId = res.headers.get('x-turn-id') ?? '';
  return {
    res,
    tenantId,
    contactId,
    turnId,
    body: (await res.json()) as { content: { messages: { text: string }[] } },
  };
}

describe('a ManyChat message that asks for a configured flow', () => {
  it('stages and replies in one model call, and the passing turn commits the flow', async () => {
    const model = scriptedModel(brochureSteps());
    const { res, tenantId, turnId, body } = await sendBrochureTurn(appWith(model));
    expect(res.status).toBe(200);
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(body.content.messages[0]?.text).toBe('Sending you the brochure now.');
    const record = await turnRecord(tenantId, turnId);
    expect(record.decision).toBe('pass');
    expect(record.steps).toHaveLength(1);
    const entry = await outboxEntry(tenantId, turnId);
    expect(entry?.actions.map((a) => [a.kind, a.args.flowName])).toEqual([['send_flow', 'brochure']]);
  });

  it('takes two model calls when the model reads first, and the second call sees the read result', async () => {
    const model = scriptedModel([
      { calls: [{ tool: 'search_faq', input: { query: 'opening hours' } }] },
      {
        calls: [{ tool: 'send_media', input: { flow: 'timetable' } }],
        reply: reply('We are open 7 to 21; the timetable is on its way.'),
      },
    ]);
    const { tenantId, turnId } = await sendBrochureTurn(appWith(model), 'When are you open? Send the timetable');
    expect(model.doGenerateCalls).toHaveLength(2);
    const secondPrompt = JSON.stringify(model.doGenerateCalls[1]?.prompt);
    expect(secondPrompt).toContain('Monday to Saturday');
    const entry = await outboxEntry(tenantId, turnId);
    expect(entry?.actions.map((a) => a.args.flowName)).toEqual(['timetable']);
  });

  it('denies an unconfigured flow and tells the model the allowed names', async () => {
    const model = scriptedModel([
      { calls: [{ tool: 'send_media', input: { flow: 'free_vacation' } }], reply: reply('Sending it now.') },
      { reply: reply('I can send the brochure, the tour or the timetable.') },
    ]);
    const { tenantId, turnId } = await sendBrochureTurn(appWith(model), 'send me the free vacation');
    expect(model.doGenerateCalls).toHaveLength(2);
    const secondPrompt = JSON.stringify(model.doGenerateCalls[1]?.prompt);
    expect(secondPrompt).toContain('not configured');
    expect(secondPrompt).toContain('brochure, studio_tour, timetable');
    const record = await turnRecord(tenantId, turnId);
    expect(record.staged).toEqual([]);
    expect(await outboxEntry(tenantId, turnId)).toBeNull();
  });

  it('stops a model that keeps calling tools at two calls', async () => {
    const model = scriptedModel([
      { calls: [{ tool: 'lookup_contact', input: {} }] },
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }] },
      { reply: reply('third step, never reached') },
    ]);
    const { tenantId, turnId, body } = await sendBrochureTurn(appWith(model));
    expect(model.doGenerateCalls).toHaveLength(2);
    const record = await turnRecord(tenantId, turnId);
    expect(record.decision).toBe('escalate');
    expect(record.committed.every((a) => a.tool.startsWith('system:'))).toBe(true);
    expect(body.content.messages[0]?.text).toContain('teammate');
  });
});

const throwing: Guardrail = {
  name: 'throws',
  check: () => {
    throw new Error('boom');
  },
};
const vetoing: Guardrail = { name: 'always-veto', check: () => ({ outcome: 'veto', reason: 'test veto' }) };
const escalating: Guardrail = {
  name: 'always-escalate',
  check: () => ({ outcome: 'escalate', reason: 'test escalate' }),
};
const hanging: Guardrail = { name: 'hangs', check: () => new Promise(() => {}) };

describe('a turn that must not happen performs nothing the model staged', () => {
  const cases: [string, Guardrail[], 'veto' | 'escalate'][] = [
    ['a guardrail veto', [...defaultGuardrails, vetoing], 'veto'],
    ['a guardrail escalate', [...defaultGuardrails, escalating], 'escalate'],
    ['a guardrail that throws', [...defaultGuardrails, throwing], 'escalate'],
    ['a guardrail that hangs past its budget', [...defaultGuardrails, hanging], 'escalate'],
  ];
  for (const [name, guardrails, decision] of cases) {
    it(`${name} → ${decision}, no model action committed`, async () => {
      const { tenantId, turnId, body } = await sendBrochureTurn(appWith(scriptedModel(brochureSteps()), guardrails));
      const record = await turnRecord(tenantId, turnId);
      expect(record.decision).toBe(decision);
      expect(record.staged.map((a) => a.kind)).toEqual(['send_flow']);
      expect(record.committed.filter((a) => !a.tool.startsWith('system:'))).toEqual([]);
      const entry = await outboxEntry(tenantId, turnId);
      expect((entry?.actions ?? []).some((a) => a.kind === 'send_flow')).toBe(false);
      expect(body.content.messages[0]?.text).toMatch(decision === 'veto' ? /Sorry/ : /teammate/);
    });
  }

  it('a model error → fallback reply, nothing committed', async () => {
    const { tenantId, turnId, body } = await sendBrochureTurn(appWith(scriptedModel([{ error: 'provider exploded' }])));
    const record = await turnRecord(tenantId, turnId);
    expect(record.decision).toBe('error');
    expect(record.decisionReason).toContain('provider exploded');
    expect(await outboxEntry(tenantId, turnId)).toBeNull();
    expect(body.content.messages[0]?.text).toMatch(/Sorry/);
  });

  it('a model that runs past the async deadline → fallback through the outbox, nothing the model staged committed', async () => {
    const { tenantId, secret } = await seedTenant({ deadlineMs: 600, asyncDeadlineMs: 5000 });
    const contactId = await newContact();
    const app = appWith(scriptedModel([{ delayMs: 60_000, ...brochureSteps()[0] }]));
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'brochure please' });
    expect(res.headers.get('x-turn-deferred')).toBe('1');
    await app.settle();
    const turnId = res.headers.get('x-turn-id')!;
    const record = await turnRecord(tenantId, turnId);
    expect(record.decision).toBe('error');
    expect(record.decisionReason).toContain('deadline');
    const entry = await outboxEntry(tenantId, turnId);
    expect(entry?.actions.map((a) => a.kind)).toEqual(['send_content']);
    expect(String(entry?.actions[0]?.args.text)).toMatch(/Sorry/);
  }, 15_000);
});

describe('fail closed on a turn without a usable reply', () => {
  it('a reply set aside in step 1 (it came with a read) and no reply in step 2 → escalate; the staged tag is not committed', async () => {
    const model = scriptedModel([
      {
        calls: [{ tool: 'lookup_contact', input: {} }],
        reply: reply('I will get a human.', { escalate: true, confidence: 0.1 }),
      },
      { calls: [{ tool: 'tag_contact', input: { tag: 'interested' } }] },
    ]);
    const { tenantId, turnId } = await sendBrochureTurn(appWith(model), 'please tag me as interested');
    expect(model.doGenerateCalls).toHaveLength(2);
    const record = await turnRecord(tenantId, turnId);
    expect(record.staged.map((a) => a.kind)).toEqual(['add_tag']);
    expect(record.decision).toBe('escalate');
    expect(record.committed.every((a) => a.tool.startsWith('system:'))).toBe(true);
  });
});

describe('the commit is claimed by the turn id', () => {
  it('a second commit of the same turn (another run of it) writes nothing', async () => {
    const model = scriptedModel(brochureSteps());
    const { tenantId, turnId } = await sendBrochureTurn(appWith(model));
    const record = await turnRecord(tenantId, turnId);
    const entry = await outboxEntry(tenantId, turnId);
    const { writeTurnCommit } = await import('../../outbox/commit.js');
    const { session } = await import('../support/workers-env.js');
    const rerun = { ...record, reply: { text: 'a second run', quickReplies: [] } };
    const written = await writeTurnCommit(session(), {
      record: rerun,
      entry: entry && { ...entry, actions: [...entry.actions, ...entry.actions] },
      history: [],
      historyLimit: 10,
      handoffUntil: null,
      pinned: [],
    });
    expect(written).toBe(false);
    expect((await turnRecord(tenantId, turnId)).reply.text).toBe('Sending you the brochure now.');
    expect(await outboxEntry(tenantId, turnId)).toEqual(entry);
  });
});

describe('nothing performs a side effect during the model loop', () => {
  it('a turn that stages a flow, a tag and a field has called ManyChat zero times when it returns (pass or veto)', async () => {
    const { sandboxCallsFor } = await import('../support/workers-env.js');
    const steps = () => [
      {
        calls: [
          { tool: 'send_media', input: { flow: 'brochure' } },
          { tool: 'tag_contact', input: { tag: 'interested' } },
          { tool: 'record_choice', input: { field: 'preferred_class', value: 'yoga' } },
        ],
        reply: reply('Sending the brochure; I noted yoga.'),
      },
    ];
    for (const guardrails of [defaultGuardrails, [...defaultGuardrails, vetoing]]) {
      const { tenantId, secret } = await seedTenant();
      const contactId = await newContact();
      const res = await appWith(scriptedModel(steps()), guardrails).post(tenantId, secret, {
        contact: { id: contactId },
        text: 'send me the brochure, tag me interested, I prefer yoga',
      });
      const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
      expect(record.staged).toHaveLength(3);
      // The test stack's QStash delivers nowhere (PUBLIC_URL is closed), so only the loop could have called.
      expect(await sandboxCallsFor(contactId)).toEqual([]);
    }
  });
});

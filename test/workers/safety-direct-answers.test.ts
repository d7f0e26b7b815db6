import { describe, expect, it } from 'vitest';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant } from '../support/workers-env.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

/**
 * A FAQ tool declared `answers_directly` may end a turn with the tenant's own answer, but never
 * silence what the model said: its typed escalate and confidence stand, and the shortcut applies
 * only when the FAQ call is the turn's first tool call and nothing else was staged or read.
 */
const HOURS = 'We are open Monday to Saturday, 7:00 to 21:00.';
const directFaq = () => {
  const demo = demoTenantConfig();
  return seedTenant({ manifest: { ...demo.manifest, search_faq: { effect: 'read', answers_directly: true } } });
};
const textOf = async (res: Response) =>
  ((await res.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text;

describe('answers_directly never cancels the model', () => {
  it("the model's escalate stands: FAQ hit + a staged flow + reply{escalate, confidence 0.05} → no pass, nothing committed", async () => {
    const { tenantId, secret } = await directFaq();
    const worst = reply('Here you go!', { escalate: true, confidence: 0.05 });
    const model = scriptedModel([
      {
        calls: [
          { tool: 'search_faq', input: { query: 'opening hours' } },
          { tool: 'send_media', input: { flow: 'brochure' } },
        ],
        reply: worst,
      },
      { reply: worst },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'opening hours? and the brochure',
    });
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('escalate');
    expect(record.committed.some((a) => a.kind === 'send_flow')).toBe(false);
    // The record keeps what the model said.
    expect(record.modelReply).toMatchObject({ escalate: true, confidence: 0.05 });
  });

  it("a FAQ hit alone with reply{escalate: true}: the answer is the tenant's, the escalation still stands", async () => {
    const { tenantId, secret } = await directFaq();
    const model = scriptedModel([
      {
        calls: [{ tool: 'search_faq', input: { query: 'opening hours' } }],
        reply: reply('x', { escalate: true, confidence: 0.9 }),
      },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'opening hours? I want a human',
    });
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(record.decision).toBe('escalate');
    expect(record.modelReply?.escalate).toBe(true);
  });

  it("a FAQ hit alone with a low-confidence reply: the model's confidence stands (escalates under the threshold)", async () => {
    const { tenantId, secret } = await directFaq();
    const model = scriptedModel([
      { calls: [{ tool: 'search_faq', input: { query: 'opening hours' } }], reply: reply('x', { confidence: 0.1 }) },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'opening hours?',
    });
    expect((await turnRecord(tenantId, res.headers.get('x-turn-id')!)).decision).toBe('escalate');
  });

  it('not the first tool call, or something staged beside it: no shortcut, the model writes the answer', async () => {
    const { tenantId, secret } = await directFaq();
    const model = scriptedModel([
      {
        calls: [
          { tool: 'send_media', input: { flow: 'brochure' } },
          { tool: 'search_faq', input: { query: 'opening hours' } },
        ],
        reply: reply('first'),
      },
      { reply: reply('The brochure is on its way, and we open at 7.') },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'brochure please, and opening hours?',
    });
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(await textOf(res)).toBe('The brochure is on its way, and we open at 7.');
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('pass');
    expect(record.modelReply?.text).toBe('The brochure is on its way, and we open at 7.');
  });

  it('the same answers_directly call twice in one step is one call: the answer once, not joined', async () => {
    const { tenantId, secret } = await directFaq();
    const call = { tool: 'search_faq', input: { query: 'opening hours' } };
    const model = scriptedModel([
      { calls: [call, { ...call, input: { query: 'opening hours' } }] },
      { reply: reply('never needed') },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'opening hours?',
    });
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(await textOf(res)).toBe(HOURS);
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('pass');
    // No reply from the model: the record says so, and the notes say who answered.
    expect(record.modelReply).toBeNull();
    expect(record.notes.join(' ')).toContain('answered directly by search_faq');
    expect(await outboxEntry(tenantId, record.turnId)).toBeNull();
  });
});

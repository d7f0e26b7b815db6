import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session } from '../support/workers-env.js';
import { appWith } from './turn-helpers.js';

type Block = { version: string; content: { messages: { type: string; text: string }[]; quick_replies: unknown[] } };
const answering = () => scriptedModel(Array.from({ length: 10 }, () => ({ reply: reply('Hello!') })));

describe('the ManyChat route rate-limits before the turn', () => {
  it('past the contact limit: HTTP 200, a Dynamic Block with the polite text, no model call, no turn', async () => {
    const { tenantId, secret } = await seedTenant({
      guardrails: { rateLimit: { contactPerMinute: 2, reply: 'Easy there! Give me a minute.' } },
    });
    const contactId = await newContact();
    const model = answering();
    const app = appWith(model);
    for (const text of ['one', 'two'])
      expect(
        (await app.post(tenantId, secret, { contact: { id: contactId }, text })).headers.get('x-turn-id'),
      ).toBeTruthy();
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'three' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-rate-limited')).toBe('contact');
    expect(res.headers.get('x-turn-id')).toBeNull();
    const block = (await res.json()) as Block;
    expect(block).toEqual({
      version: 'v2',
      content: { messages: [{ type: 'text', text: 'Easy there! Give me a minute.' }], actions: [], quick_replies: [] },
    });
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(await session().one((r) => r.zcard(tenantKeys(tenantId).turnLog))).toBe(2);
    // Another contact of the tenant is still answered.
    expect(
      (await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'hi' })).headers.get('x-turn-id'),
    ).toBeTruthy();
  });

  it('past the tenant limit every contact gets the polite reply', async () => {
    const { tenantId, secret } = await seedTenant({ guardrails: { rateLimit: { tenantPerMinute: 2 } } });
    const app = appWith(answering());
    for (let i = 0; i < 2; i++)
      expect(
        (await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'hi' })).headers.get(
          'x-turn-id',
        ),
      ).toBeTruthy();
    const res = await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'hi' });
    expect(res.headers.get('x-rate-limited')).toBe('tenant');
    expect(((await res.json()) as Block).content.messages[0]?.text).toMatch(/faster than I can answer/);
  });

  it('retries of a delivery are not counted: they join the first turn', async () => {
    const { tenantId, secret } = await seedTenant({ guardrails: { rateLimit: { contactPerMinute: 1 } } });
    const contactId = await newContact();
    const model = answering();
    const app = appWith(model);
    const body = { contact: { id: contactId }, text: 'hi', message_key: `mk-${contactId}` };
    const first = await app.post(tenantId, secret, body);
    const retries = await Promise.all([1, 2, 3].map(() => app.post(tenantId, secret, body)));
    for (const r of retries) {
      expect(r.headers.get('x-rate-limited')).toBeNull();
      expect(r.headers.get('x-duplicate-of')).toBe(first.headers.get('x-turn-id'));
    }
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('bad input is answered before the limit is consulted (a 400 costs no token)', async () => {
    const { tenantId, secret } = await seedTenant({ guardrails: { rateLimit: { contactPerMinute: 1 } } });
    const contactId = await newContact();
    const app = appWith(answering());
    // A text that is not a string: a 400 (no text at all is a polite 200 now, issue 30).
    for (let i = 0; i < 3; i++)
      expect((await app.post(tenantId, secret, { contact: { id: contactId }, text: 42 })).status).toBe(400);
    expect(
      (await app.post(tenantId, secret, { contact: { id: contactId }, text: 'hi' })).headers.get('x-turn-id'),
    ).toBeTruthy();
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { createApp } from '../../src/app.js';
import { fillManyChatTemplate, MANYCHAT_REQUEST_BODY, MANYCHAT_REQUEST_HEADERS, MANYCHAT_REQUEST_URL } from '../../dev/docs/manychat-template.js';
import { DEMO_PAGE_ID } from '../../dev/demo-tenant.js';
import { newContact, seedTenant, workerEnv } from '../support/workers-env.js';
import { turnRecord } from './turn-helpers.js';

/** ManyChat's Dynamic Block v2, as its docs define it (an oracle independent of src/). */
const DynamicBlockV2 = z.strictObject({
  version: z.literal('v2'),
  content: z.strictObject({
    messages: z.array(z.object({ type: z.literal('text'), text: z.string().min(1).max(2000) })).min(1).max(10),
    actions: z.array(z.unknown()).max(5),
    quick_replies: z.array(z.object({ type: z.literal('dynamic_block_callback'), caption: z.string().min(1).max(20), url: z.url(), method: z.literal('post'), payload: z.record(z.string(), z.unknown()) }).loose()).max(11),
  }),
});

/** A time `msAgo` before now as ManyChat writes it: ISO 8601 with a +01:00 offset, no milliseconds. */
function manyChatTime(msAgo: number): string {
  const shifted = new Date(Date.now() - msAgo + 3600_000);
  return `${shifted.toISOString().slice(0, 19)}+01:00`;
}

/** Full Contact Data as ManyChat fills it: a number id, ISO times with an offset, custom fields by name. */
function fullContactData(id: string, lastInput: string, lastInteraction: string) {
  return {
    id: Number(id),
    key: `user:${id}`,
    page_id: Number(DEMO_PAGE_ID),
    status: 'active',
    first_name: 'Ada',
    last_name: 'Lovelace',
    name: 'Ada Lovelace',
    gender: 'female',
    profile_pic: 'https://manychat-cdn.example/profile.jpg',
    locale: 'en_US',
    language: 'English',
    timezone: 'UTC+01',
    live_chat_url: `https://manychat.com/fb${DEMO_PAGE_ID}/chat/${id}`,
    last_input_text: lastInput,
    last_growth_tool: null,
    subscribed: manyChatTime(30 * 86_400_000),
    last_interaction: lastInteraction,
    last_seen: lastInteraction,
    custom_fields: { preferred_class: null, visits: 3, member: true },
  };
}

async function post(url: string, headers: Record<string, string>, body: string) {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(new Request(url, { method: 'POST', headers, body }), workerEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe('the README walkthrough\'s ManyChat request template', () => {
  it('filled as ManyChat fills it, gets a valid Dynamic Block v2 from the Worker (offline rule model, demo config)', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    // A quote and a line break, escaped inside the JSON string as ManyChat's body editor does.
    const text = 'Hi! Can you send me the "brochure"?\nThanks';
    // The contact just wrote (the 24-hour messaging window is open).
    const lastInteraction = manyChatTime(2000);
    const body = fillManyChatTemplate({ fullContactData: fullContactData(contactId, text, lastInteraction), lastInputText: text, userId: contactId, lastInteraction });
    expect(() => JSON.parse(body)).not.toThrow();
    const url = MANYCHAT_REQUEST_URL.replace('<worker>', 'http://worker.test').replace('<tenant>', tenantId);
    const headers = Object.fromEntries(MANYCHAT_REQUEST_HEADERS.map((h) => [h.name, h.name === 'x-staged-agent-secret' ? secret : h.value]));
    const res = await post(url, headers, body);
    expect(res.status).toBe(200);
    const reply = DynamicBlockV2.parse(await res.json());
    expect(reply.content.messages[0]!.text.length).toBeGreaterThan(0);
    const turnId = res.headers.get('x-turn-id')!;
    const record = await turnRecord(tenantId, turnId);
    expect(record.inbound.text).toBe(text);
    // The template's key, with the message's digest (a duplicate is the same message: issue 28, item 12).
    expect(record.messageKey).toMatch(new RegExp(`^k:${contactId}:${lastInteraction.replace(/[+.]/g, '\\$&')}:[0-9a-f]{32}$`));
    expect(record.inbound.contact.name).toBe('Ada Lovelace');
    expect(record.decision, record.decisionReason).toBe('pass');
    expect(record.committed.map((a) => [a.kind, a.args.flowName])).toContainEqual(['send_flow', 'brochure']);

    // ManyChat retrying the same request joins the same turn.
    const again = await post(url, headers, body);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-duplicate-of')).toBe(turnId);
  });

  it('documents every variable it fills', () => {
    for (const variable of ['{{Full Contact Data}}', '{{last_input_text}}', '{{user_id}}', '{{last_interaction}}']) expect(MANYCHAT_REQUEST_BODY).toContain(variable);
    const filled = fillManyChatTemplate({ fullContactData: { id: 1 }, lastInputText: 'x', userId: '1', lastInteraction: 't' });
    expect(filled).not.toContain('{{');
  });
});

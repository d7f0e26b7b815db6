import { describe, expect, it } from 'vitest';
import { dynamicBlockSchema } from '../support/manychat-channel-schemas.js';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { createApp } from '../../src/app.js';
import {
  fillManyChatTemplate,
  MANYCHAT_REQUEST_BODY,
  MANYCHAT_REQUEST_HEADERS,
  MANYCHAT_REQUEST_URL,
} from '../../dev/docs/manychat-template.js';
import { DEMO_PAGE_ID } from '../../dev/demo-tenant.js';
import { newContact, seedTenant, workerEnv } from '../support/workers-env.js';
import { turnRecord } from './turn-helpers.js';

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

/** Full Contact Data of an Instagram contact: ManyChat's Instagram fields, `last_interaction` of an older Messenger chat. */
function instagramContactData(id: string, lastInput: string, igLastInteraction: string) {
  return {
    ...fullContactData(id, lastInput, manyChatTime(3 * 86_400_000)),
    ig_id: 17841400000000000 + Number(id),
    ig_username: 'ada.l',
    ig_last_interaction: igLastInteraction,
    ig_last_seen: igLastInteraction,
    whatsapp_phone: null,
  };
}

describe("the README walkthrough's ManyChat request template", () => {
  it('filled as ManyChat fills it on an Instagram flow, gets an Instagram Dynamic Block from the Worker; the key follows ig_last_interaction', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    // A quote and a line break in the contact's message: only inside Full Contact Data, JSON-escaped by ManyChat.
    const text = 'Hi! Can you send me the "brochure"?\nThanks';
    const igLast = manyChatTime(2000);
    const body = fillManyChatTemplate({
      fullContactData: instagramContactData(contactId, text, igLast),
      channel: 'instagram',
    });
    expect(() => JSON.parse(body)).not.toThrow();
    const url = MANYCHAT_REQUEST_URL.replace('<worker>', 'http://worker.test').replace('<tenant>', tenantId);
    const headers = Object.fromEntries(
      MANYCHAT_REQUEST_HEADERS.map((h) => [h.name, h.name === 'x-staged-agent-secret' ? secret : h.value]),
    );
    const res = await post(url, headers, body);
    expect(res.status).toBe(200);
    const reply = dynamicBlockSchema('instagram').parse(await res.json());
    expect((reply.content as { type?: string }).type).toBe('instagram');
    expect(reply.content.messages[0]!.text.length).toBeGreaterThan(0);
    const turnId = res.headers.get('x-turn-id')!;
    const record = await turnRecord(tenantId, turnId);
    expect(record.inbound.text).toBe(text);
    expect(record.inbound.surface).toBe('instagram');
    // The channel's own last interaction, with the message's digest (a duplicate is the same message: issue 28, item 12).
    expect(record.messageKey).toMatch(
      new RegExp(`^li:instagram:${contactId}:${igLast.replace(/[+.]/g, '\\$&')}:[0-9a-f]{32}$`),
    );
    expect(record.inbound.contact.name).toBe('Ada Lovelace');
    expect(record.decision, record.decisionReason).toBe('pass');
    expect(record.committed.map((a) => [a.kind, a.args.flowName])).toContainEqual(['send_flow', 'brochure']);

    // ManyChat retrying the same request joins the same turn.
    const again = await post(url, headers, body);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-duplicate-of')).toBe(turnId);
    // The contact's next Instagram message (new ig_last_interaction, the same old last_interaction) is a new turn.
    const next = await post(
      url,
      headers,
      fillManyChatTemplate({
        fullContactData: instagramContactData(contactId, 'And the timetable?', manyChatTime(1000)),
        channel: 'instagram',
      }),
    );
    expect(next.headers.get('x-duplicate-of')).toBeNull();
    expect(next.headers.get('x-turn-id')).not.toBe(turnId);
  });

  it("a photo, sticker or voice note (no text): a polite reply in the channel's shape, not a 400", async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const url = MANYCHAT_REQUEST_URL.replace('<worker>', 'http://worker.test').replace('<tenant>', tenantId);
    const headers = Object.fromEntries(
      MANYCHAT_REQUEST_HEADERS.map((h) => [h.name, h.name === 'x-staged-agent-secret' ? secret : h.value]),
    );
    const wa = {
      ...fullContactData(contactId, '', manyChatTime(1000)),
      last_input_text: null,
      whatsapp_phone: '+4915100000000',
    };
    const res = await post(url, headers, fillManyChatTemplate({ fullContactData: wa, channel: 'whatsapp' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-no-text')).toBe('1');
    const reply = dynamicBlockSchema('whatsapp').parse(await res.json());
    expect(reply.content.messages[0]!.text).toMatch(/text/);
  });

  it('documents the one variable it fills, and no "text" field that a quote would break', () => {
    expect(MANYCHAT_REQUEST_BODY).toContain('{{Full Contact Data}}');
    expect(MANYCHAT_REQUEST_BODY).not.toContain('{{last_input_text}}');
    expect(MANYCHAT_REQUEST_BODY).toContain('"channel": "instagram"');
    const filled = fillManyChatTemplate({ fullContactData: { id: 1 } });
    expect(filled).not.toContain('{{');
    expect(JSON.parse(filled)).toEqual({ channel: 'instagram', contact: { id: 1 } });
  });
});

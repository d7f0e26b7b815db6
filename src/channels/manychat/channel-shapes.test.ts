import { describe, expect, it } from 'vitest';
import {
  MANYCHAT_CHANNELS,
  MANYCHAT_CHANNEL_LIMITS,
  manyChatWindow,
  type ManyChatChannel,
} from '../../../core/manychat-channels.js';
import type { OutgoingReply } from '../../../core/turn-record.js';
import { createManyChatClient } from '../../../outbox/manychat-client.js';
import { dynamicBlockSchema, sendContentBodySchema } from '../../../test/support/manychat-channel-schemas.js';
import { contactChannel } from './contact-channel.js';
import { toDynamicBlock } from './dynamic-block.js';
import { signedQuickReplies } from './signed-quick-replies.js';
import { manyChatMessageKey } from './message-key.js';

const CALLBACK = 'https://agent.example.test/v1/manychat/t1';
const confirmation: OutgoingReply = {
  text: 'Shall I note yoga as your preferred class?',
  quickReplies: [
    { caption: 'Yes', callback: { pendingId: 'p1', answer: 'yes', nonce: 'n1' } },
    { caption: 'No', callback: { pendingId: 'p1', answer: 'no', nonce: 'n1' } },
  ],
} as OutgoingReply;
const suggestions: OutgoingReply = {
  text: 'Anything else?',
  quickReplies: ['Prices', 'Timetable', 'Parking', 'Teachers', 'Hours'].map((caption) => ({ caption })),
} as OutgoingReply;
const plain: OutgoingReply = { text: 'We are open 7:00 to 21:00.', quickReplies: [] } as OutgoingReply;
const long: OutgoingReply = { text: `${'word '.repeat(900)}end.`, quickReplies: [] } as OutgoingReply;
// A long answer that ends in a question with Yes/No: on WhatsApp the buttons make it an interactive message (body ≤ 1024).
const longConfirmation: OutgoingReply = {
  ...confirmation,
  text: `${'We have several classes in the morning and in the evening. '.repeat(30)}Shall I note yoga?`,
} as OutgoingReply;
const REPLIES = {
  plain,
  confirmation,
  longConfirmation,
  suggestions,
  long,
  empty: { text: '', quickReplies: [] } as unknown as OutgoingReply,
};

/** Every reply shape the product sends, on one channel: the webhook's Dynamic Block and the outbox's sendContent body. */
async function shapes(channel: ManyChatChannel) {
  const out: { name: string; block: unknown; sent: unknown }[] = [];
  for (const [name, reply] of Object.entries(REPLIES)) {
    const buttons = await signedQuickReplies(reply, CALLBACK, 'secret', 't1', '42', channel);
    const block = toDynamicBlock(reply, buttons, channel);
    let sent: unknown = null;
    if (reply.text) {
      const client = createManyChatClient({
        baseUrl: 'https://api.manychat.test',
        apiKey: '1:k',
        timeoutMs: 1000,
        fetch: (async (_url: string, init: RequestInit) => {
          sent = JSON.parse(String(init.body));
          return new Response('{"status":"success"}', { status: 200 });
        }) as typeof fetch,
      });
      const result = await client.sendContent(
        '42',
        { text: reply.text, ...(buttons.length ? { quickReplies: buttons } : {}) },
        channel === 'facebook' ? 'ACCOUNT_UPDATE' : undefined,
        { channel, lastInboundAt: new Date().toISOString() },
      );
      expect(result.ok, name).toBe(true);
    }
    out.push({ name, block, sent });
  }
  return out;
}

describe.each(MANYCHAT_CHANNELS)('every reply shape on %s is one ManyChat documents', (channel) => {
  it('the Dynamic Block answers and the sendContent bodies validate against the schema written from the docs', async () => {
    for (const { name, block, sent } of await shapes(channel)) {
      const b = dynamicBlockSchema(channel).safeParse(block);
      expect(b.success, `${channel} ${name} block: ${b.error?.message}`).toBe(true);
      if (sent !== null) {
        const s = sendContentBodySchema(channel).safeParse(sent);
        expect(s.success, `${channel} ${name} sendContent: ${s.error?.message}`).toBe(true);
      }
    }
  });

  it("a confirmation's Yes and No reach the contact as something to press, signed and pinned to the row", async () => {
    const buttons = await signedQuickReplies(confirmation, CALLBACK, 'secret', 't1', '42', channel);
    const { content } = toDynamicBlock(confirmation, buttons, channel);
    const pressable = MANYCHAT_CHANNEL_LIMITS[channel].quickReplies
      ? content.quick_replies!
      : content.messages.at(-1)!.buttons!;
    expect(pressable.map((b) => b.caption)).toEqual(['Yes', 'No']);
    for (const b of pressable) {
      expect(b.type).toBe('dynamic_block_callback');
      expect(b.payload).toMatchObject({
        contact: { id: '42' },
        callback: { kind: 'confirm', pendingId: 'p1', nonce: 'n1' },
      });
      expect(typeof b.payload.sig).toBe('string');
      // The press comes back knowing the channel to answer in (Facebook: none needed).
      expect(
        contactChannel({
          contact: { id: '42' },
          ...(b.payload.channel ? { channel: b.payload.channel as ManyChatChannel } : {}),
        } as never).channel,
      ).toBe(channel);
    }
  });
});

describe('per-channel rules', () => {
  it('quick replies only on Facebook and Instagram; on WhatsApp and Telegram at most three buttons on the text, Yes/No never dropped', async () => {
    const mixed: OutgoingReply = {
      text: 'x',
      quickReplies: [...suggestions.quickReplies, ...confirmation.quickReplies],
    } as OutgoingReply;
    for (const channel of ['whatsapp', 'telegram'] as const) {
      const { content } = toDynamicBlock(
        mixed,
        await signedQuickReplies(mixed, CALLBACK, 's', 't1', '42', channel),
        channel,
      );
      expect(content.quick_replies).toBeUndefined();
      expect(content.messages.at(-1)!.buttons!.map((b) => b.caption)).toEqual(['Yes', 'No', 'Prices']);
    }
    expect(
      toDynamicBlock(mixed, await signedQuickReplies(mixed, CALLBACK, 's', 't1', '42', 'instagram'), 'instagram')
        .content.quick_replies,
    ).toHaveLength(7);
  });

  it('content.type on Instagram, WhatsApp and Telegram; none on Facebook', () => {
    expect(toDynamicBlock(plain, [], 'facebook').content).not.toHaveProperty('type');
    for (const c of ['instagram', 'whatsapp', 'telegram'] as const)
      expect(toDynamicBlock(plain, [], c).content.type).toBe(c);
  });

  it("text past the channel's limit is split into several messages, never cut off", () => {
    const { content } = toDynamicBlock(long, [], 'instagram');
    expect(content.messages.length).toBeGreaterThan(1);
    expect(content.messages.every((m) => m.text.length <= 1000)).toBe(true);
    expect(content.messages.map((m) => m.text).join(' ')).toBe(long.text);
  });

  it('Instagram measures text as Meta does: under 1000 characters and at most 1000 UTF-8 bytes (a German or emoji reply is split by bytes)', () => {
    const bytes = (t: string) => new TextEncoder().encode(t).length;
    // 900 characters, 1200 bytes: within a character count of 1000, past Instagram's 1000 bytes.
    const umlauts: OutgoingReply = { text: 'Grüße '.repeat(150).trim(), quickReplies: [] } as OutgoingReply;
    const emoji: OutgoingReply = { text: `${'🙂 '.repeat(400)}ok`, quickReplies: [] } as OutgoingReply;
    const exactly: OutgoingReply = { text: 'a'.repeat(1000), quickReplies: [] } as OutgoingReply;
    for (const reply of [umlauts, emoji, exactly]) {
      const { content } = toDynamicBlock(reply, [], 'instagram');
      expect(content.messages.length).toBeGreaterThan(1);
      for (const m of content.messages) {
        expect(bytes(m.text)).toBeLessThanOrEqual(1000);
        expect(m.text.length).toBeLessThan(1000);
        expect(m.text).not.toMatch(/[\uD800-\uDBFF]$/); // never half an emoji
      }
      expect(content.messages.map((m) => m.text).join(reply === exactly ? '' : ' ')).toBe(reply.text);
      expect(dynamicBlockSchema('instagram').safeParse({ version: 'v2', content }).success).toBe(true);
    }
    // Other channels count characters: the same 900-character text is one message on WhatsApp.
    expect(toDynamicBlock(umlauts, [], 'whatsapp').content.messages).toHaveLength(1);
  });

  it('WhatsApp: the message carrying buttons is an interactive message, its text at most 1024 characters; the whole text still goes', async () => {
    const buttons = await signedQuickReplies(longConfirmation, CALLBACK, 'secret', 't1', '42', 'whatsapp');
    const { content } = toDynamicBlock(longConfirmation, buttons, 'whatsapp');
    const withButtons = content.messages.filter((m) => m.buttons?.length);
    expect(withButtons).toHaveLength(1);
    expect(withButtons[0]!.text.length).toBeLessThanOrEqual(1024);
    expect(withButtons[0]!.buttons!.map((b) => b.caption)).toEqual(['Yes', 'No']);
    expect(content.messages.map((m) => m.text).join(' ')).toBe(longConfirmation.text);
    // Telegram's inline keyboard rides on a message of up to 4096 characters: one message there.
    const tg = toDynamicBlock(longConfirmation, buttons, 'telegram').content;
    expect(tg.messages).toHaveLength(1);
  });

  it('the messaging window: WhatsApp and Instagram refuse after 24 h (fail closed on an unreadable time); Telegram has none; Facebook is left to ManyChat', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    const old = '2026-02-28T11:00:00Z';
    expect(manyChatWindow('whatsapp', old, now)).toMatchObject({ ok: false, why: expect.stringContaining('template') });
    expect(manyChatWindow('instagram', old, now)).toMatchObject({
      ok: false,
      why: expect.stringContaining('human-agent'),
    });
    expect(manyChatWindow('whatsapp', '2026-03-01T00:00:00Z', now)).toEqual({ ok: true });
    expect(manyChatWindow('whatsapp', 'yesterday', now).ok).toBe(false);
    expect(manyChatWindow('telegram', old, now)).toEqual({ ok: true });
    expect(manyChatWindow('facebook', old, now)).toEqual({ ok: true });
  });

  it("outside WhatsApp's session the outbox sends nothing and says why (a permanent refusal: a dead letter)", async () => {
    let called = false;
    const client = createManyChatClient({
      baseUrl: 'https://api.manychat.test',
      apiKey: '1:k',
      timeoutMs: 1000,
      now: () => Date.parse('2026-03-01T12:00:00Z'),
      fetch: (async () => {
        called = true;
        return new Response('{"status":"success"}');
      }) as unknown as typeof fetch,
    });
    const result = await client.sendContent('42', { text: 'Your brochure is on its way' }, undefined, {
      channel: 'whatsapp',
      lastInboundAt: '2026-02-27T12:00:00Z',
    });
    expect(result).toMatchObject({
      ok: false,
      kind: 'permanent',
      message: expect.stringContaining("WhatsApp's 24-hour session"),
    });
    expect(called).toBe(false);
  });
});

describe('contactChannel: the channel of a delivery', () => {
  it('the template names it; else Full Contact Data tells it; else Facebook, marked unknown (the route logs it)', () => {
    expect(contactChannel({ channel: 'telegram', contact: { id: '1' } })).toMatchObject({
      channel: 'telegram',
      from: 'template',
    });
    expect(
      contactChannel({
        contact: {
          id: '1',
          ig_id: 178,
          ig_username: 'a',
          ig_last_interaction: '2026-01-02T00:00:00Z',
          last_interaction: '2026-01-01T00:00:00Z',
        },
      }),
    ).toEqual({ channel: 'instagram', from: 'fields', lastInteraction: '2026-01-02T00:00:00Z' });
    expect(
      contactChannel({ contact: { id: '1', whatsapp_phone: '+49151', last_interaction: '2026-01-01T00:00:00Z' } }),
    ).toMatchObject({ channel: 'whatsapp', from: 'fields' });
    expect(
      contactChannel({
        contact: { id: '1', ig_id: null, whatsapp_phone: null, last_interaction: '2026-01-01T00:00:00Z' },
      }),
    ).toMatchObject({ channel: 'facebook', from: 'fields' });
    expect(contactChannel({ contact: { id: '1', last_interaction: '2026-01-01T00:00:00Z' } })).toMatchObject({
      channel: 'facebook',
      from: 'unknown',
    });
    // Both Instagram and WhatsApp: the newest own last-interaction wins; a tie cannot be told.
    expect(
      contactChannel({
        contact: {
          id: '1',
          ig_id: 1,
          whatsapp_phone: '+1',
          ig_last_interaction: '2026-01-03T00:00:00Z',
          last_interaction: '2026-01-01T00:00:00Z',
        },
      }).channel,
    ).toBe('instagram');
    expect(
      contactChannel({
        contact: {
          id: '1',
          ig_id: 1,
          whatsapp_phone: '+1',
          ig_last_interaction: '2026-01-01T00:00:00Z',
          last_interaction: '2026-01-01T00:00:00Z',
        },
      }),
    ).toMatchObject({ channel: 'facebook', from: 'unknown' });
  });

  it("the delivery key uses the channel's own last-interaction field", async () => {
    const webhook = {
      channel: 'instagram' as const,
      contact: { id: '7', ig_last_interaction: '2026-01-02T00:00:00Z', last_interaction: '2025-12-01T00:00:00Z' },
    };
    expect(await manyChatMessageKey(webhook, 'hi', new Date(), contactChannel(webhook))).toMatch(
      /^li:instagram:7:2026-01-02T00:00:00Z:[0-9a-f]{32}$/,
    );
    const fb = { contact: { id: '7', last_interaction: '2025-12-01T00:00:00Z' } };
    expect(await manyChatMessageKey(fb, 'hi', new Date(), contactChannel(fb))).toMatch(
      /^li:7:2025-12-01T00:00:00Z:[0-9a-f]{32}$/,
    );
  });
});

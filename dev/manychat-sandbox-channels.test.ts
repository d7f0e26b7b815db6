import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dynamicBlockProblems, startManyChatSandbox, type ManyChatSandbox } from './manychat-sandbox.js';

/** The sandbox speaks each ManyChat channel: it refuses what ManyChat's response references refuse. */
const PAGE = '3003';
const KEY = '3003:secret-c';
const HOUR = 3600_000;
let sb: ManyChatSandbox;
beforeEach(async () => {
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  sb = await startManyChatSandbox({
    port: 0,
    pages: [{ pageId: PAGE, apiKey: KEY }],
    subscribers: [
      { pageId: PAGE, id: '1', channel: 'facebook', lastInteraction: ago(HOUR) },
      { pageId: PAGE, id: '2', channel: 'instagram', lastInteraction: ago(HOUR) },
      { pageId: PAGE, id: '3', channel: 'whatsapp', lastInteraction: ago(HOUR) },
      { pageId: PAGE, id: '4', channel: 'telegram', lastInteraction: ago(40 * 24 * HOUR) },
      { pageId: PAGE, id: '5', channel: 'whatsapp', lastInteraction: ago(30 * HOUR) },
      { pageId: PAGE, id: '6', channel: 'instagram', lastInteraction: ago(30 * HOUR) },
    ],
  });
});
afterEach(async () => {
  await sb.close();
});

async function send(subscriber: number, content: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${sb.url}/fb/sending/sendContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ subscriber_id: subscriber, data: { version: 'v2', content }, ...extra }),
  });
  return {
    status: res.status,
    json: (await res.json()) as { status: string; message?: string; details?: { messages: { message: string }[] } },
  };
}
const text = { type: 'text', text: 'Hello' };
const yes = {
  type: 'dynamic_block_callback',
  caption: 'Yes',
  url: 'https://agent.example/v1/manychat/t',
  method: 'post',
  payload: { sig: 'x' },
};

describe('the sandbox refuses what ManyChat refuses, per channel, with its error envelope', () => {
  it('Instagram: content.type required, and no video', async () => {
    const missing = await send(2, { messages: [text] });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({
      status: 'error',
      message: expect.stringContaining('content.type: required for an Instagram contact'),
    });
    const video = await send(2, { type: 'instagram', messages: [{ type: 'video', url: 'https://cdn.example/v.mp4' }] });
    expect(video.json.details!.messages.map((m) => m.message)).toContainEqual(
      expect.stringContaining('video files is not supported by Instagram'),
    );
    expect((await send(2, { type: 'instagram', messages: [text], quick_replies: [yes] })).status).toBe(200);
  });

  it('Instagram: text under 1000 characters and at most 1000 UTF-8 bytes (Meta); WhatsApp counts 4096 characters', async () => {
    const umlauts = 'Grüße '.repeat(150).trim(); // 899 characters, 1199 bytes
    const refused = await send(2, { type: 'instagram', messages: [{ type: 'text', text: umlauts }] });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toContain('more than 1000 UTF-8 bytes');
    const thousand = await send(2, { type: 'instagram', messages: [{ type: 'text', text: 'a'.repeat(1000) }] });
    expect(thousand.json.message).toContain('longer than 999 characters');
    expect((await send(2, { type: 'instagram', messages: [{ type: 'text', text: 'a'.repeat(999) }] })).status).toBe(
      200,
    );
    expect((await send(3, { type: 'whatsapp', messages: [{ type: 'text', text: umlauts }] })).status).toBe(200);
  });

  it('WhatsApp: a text carrying buttons (an interactive message) is at most 1024 characters', async () => {
    const long = 'a '.repeat(600).trim(); // 1199 characters
    const refused = await send(3, { type: 'whatsapp', messages: [{ type: 'text', text: long, buttons: [yes] }] });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toContain('with buttons longer than 1024 characters');
    expect((await send(3, { type: 'whatsapp', messages: [{ type: 'text', text: long }] })).status).toBe(200);
    expect((await send(4, { type: 'telegram', messages: [{ type: 'text', text: long, buttons: [yes] }] })).status).toBe(
      200,
    );
  });

  it('WhatsApp: no quick replies; buttons on the text message are accepted; a wrong type is refused', async () => {
    const quick = await send(3, { type: 'whatsapp', messages: [text], quick_replies: [yes] });
    expect(quick.status).toBe(400);
    expect(quick.json.message).toContain('Quick Reply buttons are not supported by WhatsApp');
    expect((await send(3, { type: 'whatsapp', messages: [{ ...text, buttons: [yes] }] })).status).toBe(200);
    expect((await send(3, { type: 'instagram', messages: [text] })).json.message).toContain('does not match');
  });

  it('WhatsApp: nothing but a template outside the 24-hour session; Instagram: 3011 past 24 h; Telegram: no window', async () => {
    const wa = await send(5, { type: 'whatsapp', messages: [text] });
    expect(wa.status).toBe(400);
    expect(wa.json.message).toContain('only an approved Message Template');
    expect((await send(6, { type: 'instagram', messages: [text] })).json).toMatchObject({
      status: 'error',
      code: 3011,
    });
    expect((await send(4, { type: 'telegram', messages: [{ ...text, buttons: [yes] }] })).status).toBe(200);
  });

  it('Facebook: no content.type', async () => {
    expect((await send(1, { type: 'instagram', messages: [text] })).json.message).toContain(
      'Facebook takes no content type',
    );
    expect((await send(1, { messages: [text], quick_replies: [yes] })).status).toBe(200);
  });

  it("getInfo names the contact's channel fields", async () => {
    const res = await fetch(`${sb.url}/fb/subscriber/getInfo?subscriber_id=2`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const info = ((await res.json()) as { data: Record<string, unknown> }).data;
    expect(info).toMatchObject({ ig_id: 2, ig_username: 'ig_2', whatsapp_phone: null });
  });

  it('dynamicBlockProblems: a webhook answer checked as a Dynamic Block on a channel', () => {
    expect(dynamicBlockProblems('instagram', { version: 'v2', content: { messages: [text] } })).toEqual([
      expect.stringContaining('content.type'),
    ]);
    expect(
      dynamicBlockProblems('telegram', {
        version: 'v2',
        content: { type: 'telegram', messages: [text], quick_replies: [yes] },
      }),
    ).toEqual([expect.stringContaining('not supported by Telegram')]);
    expect(
      dynamicBlockProblems('whatsapp', {
        version: 'v2',
        content: { type: 'whatsapp', messages: [{ ...text, buttons: [yes, yes] }], actions: [] },
      }),
    ).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { classifyGraphResponse, createMessengerClient, messengerWindow } from './messenger-client.js';

const now = Date.parse('2026-11-29T12:00:00.000Z');
const hoursAgo = (h: number) => new Date(now - h * 3600_000).toISOString();

describe('messengerWindow: RESPONSE inside 24 h; outside only an allowed tag, never HUMAN_AGENT', () => {
  it('inside the window: RESPONSE, whatever tag was asked for', () => {
    expect(messengerWindow({ lastInboundAt: hoursAgo(23.9) }, [], now)).toEqual({
      ok: true,
      messaging: { messaging_type: 'RESPONSE' },
    });
    expect(messengerWindow({ lastInboundAt: hoursAgo(1), messageTag: 'ACCOUNT_UPDATE' }, [], now)).toEqual({
      ok: true,
      messaging: { messaging_type: 'RESPONSE' },
    });
  });

  it('outside: no tag, a tag the tenant does not allow, or HUMAN_AGENT (even allowed) is refused with the reason', () => {
    const noTag = messengerWindow({ lastInboundAt: hoursAgo(30) }, ['ACCOUNT_UPDATE'], now);
    expect(noTag).toEqual({
      ok: false,
      why: expect.stringContaining(
        "outside the 24-hour window (30 h since the contact's last message) and no message tag",
      ),
    });
    expect(
      messengerWindow({ lastInboundAt: hoursAgo(30), messageTag: 'POST_PURCHASE_UPDATE' }, ['ACCOUNT_UPDATE'], now),
    ).toEqual({ ok: false, why: expect.stringContaining('POST_PURCHASE_UPDATE is not allowed for this tenant') });
    expect(messengerWindow({ lastInboundAt: hoursAgo(30), messageTag: 'HUMAN_AGENT' }, ['HUMAN_AGENT'], now)).toEqual({
      ok: false,
      why: expect.stringContaining('automated content is never sent under it'),
    });
  });

  it('outside with an allowed tag: MESSAGE_TAG with that tag', () => {
    expect(
      messengerWindow({ lastInboundAt: hoursAgo(48), messageTag: 'ACCOUNT_UPDATE' }, ['ACCOUNT_UPDATE'], now),
    ).toEqual({ ok: true, messaging: { messaging_type: 'MESSAGE_TAG', tag: 'ACCOUNT_UPDATE' } });
  });

  it('an unreadable time fails closed', () => {
    expect(messengerWindow({ lastInboundAt: 'yesterday' }, [], now).ok).toBe(false);
  });
});

describe('classifyGraphResponse', () => {
  it("a 2xx counts only with a message_id; rate limits are refusals; 5xx unknown; other 4xx permanent with Graph's words", () => {
    expect(classifyGraphResponse(200, '{"recipient_id":"1","message_id":"m_1"}', null, 'message_id')).toEqual({
      ok: true,
    });
    expect(classifyGraphResponse(200, '{"recipient_id":"1"}', null, 'message_id')).toMatchObject({
      ok: false,
      kind: 'timeout',
    });
    expect(
      classifyGraphResponse(
        400,
        '{"error":{"message":"(#613) Calls to this api have exceeded the rate limit.","code":613}}',
        '7',
        'message_id',
      ),
    ).toMatchObject({ ok: false, kind: 'retryable', retryAfterSeconds: 7 });
    expect(classifyGraphResponse(500, '{"error":{"message":"oops","code":1}}', null, 'message_id')).toMatchObject({
      ok: false,
      kind: 'timeout',
    });
    expect(
      classifyGraphResponse(
        400,
        '{"error":{"message":"(#10) This message is sent outside of allowed window.","code":10,"error_subcode":2018278}}',
        null,
        'message_id',
      ),
    ).toEqual({
      ok: false,
      kind: 'permanent',
      status: 400,
      code: 10,
      message: 'Graph code 10 subcode 2018278: (#10) This message is sent outside of allowed window.',
    });
  });
});

describe('createMessengerClient', () => {
  it('posts recipient, messaging_type and message with the token in the header only; a refused send makes no call', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const fetchStub: typeof fetch = async (input, init) => {
      calls.push({ url: String(input), init: init! });
      return new Response('{"recipient_id":"77","message_id":"m_x"}', { status: 200 });
    };
    const client = createMessengerClient({
      graphUrl: 'https://graph.example.test/v23.0/',
      pageAccessToken: 'tok',
      fetch: fetchStub,
      timeoutMs: 1000,
      allowedMessageTags: [],
      now: () => now,
    });
    const quickReplies = [{ content_type: 'text' as const, title: 'Yes', payload: 'p' }];
    expect(await client.sendMessage('77', { text: 'hi', quickReplies }, { lastInboundAt: hoursAgo(2) })).toEqual({
      ok: true,
    });
    expect(calls[0]?.url).toBe('https://graph.example.test/v23.0/me/messages');
    expect((calls[0]?.init.headers as Record<string, string>).authorization).toBe('Bearer tok');
    expect(JSON.parse(String(calls[0]?.init.body))).toEqual({
      recipient: { id: '77' },
      messaging_type: 'RESPONSE',
      message: { text: 'hi', quick_replies: quickReplies },
    });
    const late = await client.sendMessage('77', { text: 'hi' }, { lastInboundAt: hoursAgo(25) });
    expect(late).toMatchObject({ ok: false, kind: 'permanent' });
    expect(calls).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testConfig } from '../../test/support/guardrail-input.js';
import { recordingManyChatApi } from '../../test/support/recording-manychat-api.js';
import type { MessengerApi } from './channel-api.js';
import { mediaProblem, sendContent } from './send-content.js';

describe('send_content', () => {
  const config = testConfig({}, { actions: { mediaHosts: ['cdn.studio.example'] } });
  const button = {
    type: 'dynamic_block_callback',
    caption: 'Yes',
    url: 'https://agent.example/v1/manychat/demo',
    method: 'post',
    payload: { a: 1 },
  };
  it("the system's own messages: not idempotent, no configured resource", () => {
    expect(sendContent.idempotent).toBe(false);
    expect(sendContent.resource({ text: 'hi' })).toBeNull();
  });
  it('checks media against the allow-list, but not its own signed buttons', () => {
    expect(sendContent.check({ text: 'hi', quickReplies: [button] }, config)).toBeNull();
    expect(sendContent.check({ text: 'hi', image_url: 'https://evil.example/x.png' }, config)).toContain(
      'not in the tenant',
    );
    expect(sendContent.check({ text: 'hi', media: ['https://evil.example/x.png'] }, config)).toContain(
      'not in the tenant',
    );
    expect(sendContent.check({ text: '' }, config)).toContain('invalid send_content arguments');
  });
  it('is performed with sendContent, buttons and message tag passed through', async () => {
    const { api, calls } = recordingManyChatApi();
    await sendContent.perform('manychat', { manychat: api }, '7', {
      text: 'hi',
      quickReplies: [button],
      messageTag: 'HUMAN_AGENT',
    });
    await sendContent.perform('manychat', { manychat: api }, '7', { text: 'plain' });
    // A Messenger quick reply in the list is not ManyChat's to send.
    await sendContent.perform('manychat', { manychat: api }, '7', {
      text: 'mixed',
      quickReplies: [{ content_type: 'text', title: 'Yes', payload: 'p' }, button],
    });
    await sendContent.perform('manychat', { manychat: api }, '7', {
      text: 'only messenger',
      quickReplies: [{ content_type: 'text', title: 'Yes', payload: 'p' }],
    });
    // The contact's ManyChat channel and its last message time travel to the client (shape and window).
    await sendContent.perform('manychat', { manychat: api }, '7', {
      text: 'on instagram',
      surface: 'instagram',
      lastInboundAt: '2026-01-01T10:00:00.000Z',
    });
    expect(calls).toEqual([
      ['sendContent', '7', { text: 'hi', quickReplies: [button] }, 'HUMAN_AGENT', {}],
      ['sendContent', '7', { text: 'plain' }, undefined, {}],
      ['sendContent', '7', { text: 'mixed', quickReplies: [button] }, undefined, {}],
      ['sendContent', '7', { text: 'only messenger' }, undefined, {}],
      [
        'sendContent',
        '7',
        { text: 'on instagram' },
        undefined,
        { channel: 'instagram', lastInboundAt: '2026-01-01T10:00:00.000Z' },
      ],
    ]);
  });
});

describe("send_content as a tenant tool: one of the tenant's prepared messages, chosen by name", () => {
  const prices = 'Drop-in 15 EUR; ten classes 120 EUR.';
  const config = testConfig({
    contents: [
      { name: 'price_list', description: 'the prices', text: prices },
      { name: 'directions', description: 'how to find us', text: 'Behind the station.' },
    ],
  });
  const tool = sendContent.tool!;
  it('is stageable; its resources are the prepared messages, and a gate binds to one', () => {
    expect(sendContent.stageable).toBe(true);
    expect(tool.resources(config)).toEqual(['content:price_list', 'content:directions']);
    expect(sendContent.resource({ content: 'price_list', text: prices })).toBe('content:price_list');
  });
  it('resolves a name to the configured text (the model never writes it); an unknown name is refused with the allowed ones', () => {
    expect(tool.resolve({ content: 'price_list' }, config)).toEqual({
      ok: true,
      args: { content: 'price_list', text: prices },
      summary: 'send "price_list" (the prices)',
    });
    expect(tool.resolve({ content: 'price_list', text: 'anything I like' }, config)).toMatchObject({
      ok: true,
      args: { text: prices },
    });
    expect(tool.resolve({ content: 'menu' }, config)).toEqual({
      ok: false,
      refusal: 'Refused: message "menu" is not configured. Allowed messages: price_list, directions.',
    });
    const narrowed = tool.narrow(config, (r) => r === 'content:directions');
    expect(tool.resolve({ content: 'price_list' }, narrowed)).toMatchObject({ ok: false });
    expect(tool.resolve({ content: 'directions' }, narrowed)).toMatchObject({ ok: true });
    expect(tool.describe(config)).toBe('Prepared messages: price_list (the prices); directions (how to find us).');
    const none = testConfig({ contents: [] });
    expect(tool.describe(none)).toBe('Prepared messages: none configured.');
    expect(tool.resolve({ content: 'menu' }, none)).toEqual({
      ok: false,
      refusal: 'Refused: message "menu" is not configured. Allowed messages: none.',
    });
  });
  it("the model is told the names it may choose from (the input schema's description)", () => {
    const described = (c: typeof config) =>
      (z.toJSONSchema(tool.input(c) as z.ZodType) as unknown as { properties: { content: { description?: string } } })
        .properties.content.description;
    expect(described(config)).toBe('One of: price_list, directions');
    expect(described(testConfig({ contents: [] }))).toBe('One of: (none)');
  });
  it('a prepared message carries exactly its configured text, no tag and no buttons', () => {
    expect(sendContent.check({ content: 'price_list', text: prices }, config)).toBeNull();
    expect(sendContent.check({ content: 'price_list', text: 'Everything is free today.' }, config)).toContain(
      'text other than its configured text',
    );
    expect(sendContent.check({ content: 'menu', text: prices }, config)).toBe('message "menu" is not configured');
    expect(sendContent.check({ content: 'price_list', text: prices, messageTag: 'ACCOUNT_UPDATE' }, config)).toContain(
      'message tag',
    );
    expect(
      sendContent.check(
        { content: 'price_list', text: prices, quickReplies: [{ content_type: 'text', title: 'Yes', payload: 'x' }] },
        config,
      ),
    ).toContain('buttons');
  });
  it('is performed on Messenger with the Send API, its text as configured', async () => {
    const sent: unknown[] = [];
    const messenger: MessengerApi = {
      sendMessage: async (...args) => (sent.push(args), { ok: true }),
      senderAction: async () => ({ ok: true }),
      passThreadControl: async () => ({ ok: true }),
      takeThreadControl: async () => ({ ok: true }),
    };
    expect(sendContent.performsOn('messenger')).toBe(true);
    await sendContent.perform('messenger', { messenger }, '991', { content: 'price_list', text: prices });
    // A system message on Messenger: its Messenger quick replies (not ManyChat's buttons), the window's time and tag passed on.
    const yes = { content_type: 'text', title: 'Yes', payload: 'p' };
    const manychatButton = {
      type: 'dynamic_block_callback',
      caption: 'Yes',
      url: 'https://agent.example/x',
      method: 'post',
      payload: {},
    };
    await sendContent.perform('messenger', { messenger }, '991', {
      text: 'Confirm?',
      quickReplies: [manychatButton, yes],
      lastInboundAt: '2026-01-01T00:00:00.000Z',
      messageTag: 'ACCOUNT_UPDATE',
    });
    await sendContent.perform('messenger', { messenger }, '991', {
      text: 'Buttons only for ManyChat',
      quickReplies: [manychatButton],
    });
    expect(sent).toEqual([
      ['991', { text: prices }, {}],
      [
        '991',
        { text: 'Confirm?', quickReplies: [yes] },
        { lastInboundAt: '2026-01-01T00:00:00.000Z', messageTag: 'ACCOUNT_UPDATE' },
      ],
      ['991', { text: 'Buttons only for ManyChat' }, {}],
    ]);
  });
});

describe('send_content: media URLs', () => {
  const config = testConfig();
  const hosts = ['cdn.studio.example', '*.img.studio.example'];
  it('any listed host will do, not only the first', () => {
    expect(mediaProblem({ args: { url: 'https://a.img.studio.example/x.png' } }, hosts)).toBeNull();
    expect(mediaProblem({ args: { url: 'https://cdn.studio.example/x.png' } }, hosts)).toBeNull();
  });
  it('an exact host is not a suffix: a host ending in it is refused', () => {
    expect(mediaProblem({ args: { url: 'https://evilcdn.studio.example/x.png' } }, ['cdn.studio.example'])).toContain(
      'not in the tenant',
    );
  });
  it('a wildcard allows a one-letter subdomain but not the bare domain', () => {
    expect(mediaProblem({ args: { url: 'https://a.img.studio.example/x.png' } }, ['*.img.studio.example'])).toBeNull();
    expect(mediaProblem({ args: { url: 'https://img.studio.example/x.png' } }, ['*.img.studio.example'])).toContain(
      'not in the tenant',
    );
  });
  it('a value that is not a URL is refused, quoted to at most 80 characters', () => {
    expect(mediaProblem({ args: { media: 'not a url' } }, hosts)).toBe('media "not a url" is not a URL');
    const long = `x${'y'.repeat(200)}`;
    expect(mediaProblem({ args: { media: long } }, hosts)).toBe(`media "${long.slice(0, 80)}" is not a URL`);
    const http = `http://cdn.studio.example/${'z'.repeat(200)}`;
    expect(mediaProblem({ args: { media: http } }, hosts)).toBe(`media "${http.slice(0, 80)}" is not https`);
  });
  it('only media keys are URLs to check, matched whole (case-insensitive)', () => {
    expect(mediaProblem({ args: { IMAGE_URL: 'http://x.example/a.png' } }, hosts)).toContain('not https');
    expect(mediaProblem({ args: { src: 'http://x.example/a.png' } }, hosts)).toContain('not https');
    expect(
      mediaProblem({ args: { profile_url: 'http://x.example/a', url_note: 'http://x.example/b' } }, hosts),
    ).toBeNull();
  });
  it('null and other non-object values inside the content are no media', () => {
    expect(mediaProblem({ args: { text: 'hi', media: null, count: 3, flag: true } }, hosts)).toBeNull();
  });
  it('its summary quotes the text, cut to 60 characters', () => {
    const sixty = 'a'.repeat(60);
    expect(sendContent.summary({ text: sixty }, config)).toBe(`send a message: "${sixty}"`);
    expect(sendContent.summary({ text: `${sixty}b` }, config)).toBe(`send a message: "${'a'.repeat(59)}…"`);
    // A prepared message is summarised by its name and description; a name not configured, by its text.
    const withPrices = testConfig({ contents: [{ name: 'price_list', description: 'the prices', text: 'x' }] });
    expect(sendContent.summary({ content: 'price_list', text: 'x' }, withPrices)).toBe(
      'send "price_list" (the prices)',
    );
    expect(sendContent.summary({ content: 'menu', text: 'x' }, withPrices)).toBe('send a message: "x"');
  });
});

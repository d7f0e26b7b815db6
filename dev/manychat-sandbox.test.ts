import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startManyChatSandbox,
  type ManyChatSandbox,
  type ManyChatSandboxOptions,
  type RecordedCall,
} from './manychat-sandbox.js';

const PAGE = '1001';
const KEY = '1001:secret-a';
const PAGE2 = '2002';
const KEY2 = '2002:secret-b';
const TOKEN = 'EAAG-page-token';
const FLOW = 'content20180221085508_278589';
const HOUR = 3600_000;

function fixtures(now = Date.now()): ManyChatSandboxOptions {
  const ago = (ms: number) => new Date(now - ms).toISOString();
  return {
    pages: [
      {
        pageId: PAGE,
        apiKey: KEY,
        tags: [
          { id: 1, name: 'vip' },
          { id: 2, name: 'lead' },
        ],
        customFields: [
          { id: 11, name: 'Score', type: 'number' },
          { id: 12, name: 'Nickname', type: 'text' },
          { id: 13, name: 'Birthday', type: 'date' },
          { id: 14, name: 'Seen_At', type: 'datetime' },
          { id: 15, name: 'Opted', type: 'boolean' },
        ],
        flows: [FLOW],
        flowNames: { [FLOW]: 'Welcome' },
      },
      { pageId: PAGE2, apiKey: KEY2, tags: [{ id: 1, name: 'vip' }], flows: [FLOW] },
    ],
    messengerPages: [{ pageId: PAGE, accessToken: TOKEN }],
    subscribers: [
      {
        pageId: PAGE,
        id: '501',
        firstName: 'Ada',
        lastName: 'Lovelace',
        lastInteraction: ago(HOUR),
        tags: ['lead'],
        customFields: { Nickname: 'Al' },
      },
      { pageId: PAGE, id: '502', firstName: 'Stale', lastInteraction: ago(30 * HOUR) },
      { pageId: PAGE, id: '503', firstName: 'Old', lastInteraction: ago(8 * 24 * HOUR) },
      { pageId: PAGE2, id: '901', lastInteraction: ago(HOUR) },
    ],
  };
}

let sb: ManyChatSandbox;
beforeEach(async () => {
  sb = await startManyChatSandbox({ port: 0, ...fixtures() });
});
afterEach(async () => {
  await sb.close();
});

interface Res {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response JSON
  headers: Headers;
}
async function call(
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string; key?: string | null; contentType?: string; signal?: AbortSignal } = {},
): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': opts.contentType ?? 'application/json' };
  const key = opts.key === undefined ? KEY : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await fetch(`${sb.url}${path}`, { method, headers, body, signal: opts.signal });
  return { status: res.status, json: await res.json(), headers: res.headers };
}
const post = (path: string, body?: unknown, opts: Parameters<typeof call>[2] = {}) =>
  call('POST', path, { ...opts, body });
const getInfo = async (id = '501', key = KEY) =>
  (await call('GET', `/fb/subscriber/getInfo?subscriber_id=${id}`, { key })).json;
const tagNames = async (id = '501') => ((await getInfo(id)).data.tags as { name: string }[]).map((t) => t.name).sort();
const fieldValue = async (name: string, id = '501') =>
  ((await getInfo(id)).data.custom_fields as { name: string; value: unknown }[]).find((f) => f.name === name)?.value;
const v2 = (content: Record<string, unknown>) => ({
  version: 'v2',
  content: { messages: [{ type: 'text', text: 'hi' }], ...content },
});
const graph = (path: string, body: unknown, token: string | null = TOKEN) =>
  call('POST', `${path}${token === null ? '' : `?access_token=${encodeURIComponent(token)}`}`, { body, key: null });

function expectValidation(res: Res, fragment: string | RegExp) {
  expect(res.status).toBe(400);
  expect(res.json.status).toBe('error');
  const messages = (res.json.details.messages as { message: string }[]).map((m) => m.message).join(' | ');
  expect(messages).toMatch(fragment);
}

describe('ManyChat subscriber endpoints', () => {
  it('getInfo returns the Subscriber with custom_fields[] (unset ones null) and tags[]', async () => {
    const info = await getInfo();
    expect(info.status).toBe('success');
    expect(info.data).toMatchObject({
      id: '501',
      page_id: PAGE,
      first_name: 'Ada',
      last_name: 'Lovelace',
      name: 'Ada Lovelace',
    });
    expect(info.data.tags).toEqual([{ id: 2, name: 'lead' }]);
    expect(info.data.custom_fields).toHaveLength(5);
    expect(info.data.custom_fields).toContainEqual({
      id: 12,
      name: 'Nickname',
      type: 'text',
      description: '',
      value: 'Al',
    });
    expect(info.data.custom_fields).toContainEqual({
      id: 11,
      name: 'Score',
      type: 'number',
      description: '',
      value: null,
    });
  });

  it('addTag / removeTag by id change the tags getInfo reports', async () => {
    expect((await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 })).json).toEqual({
      status: 'success',
    });
    expect(await tagNames()).toEqual(['lead', 'vip']);
    expect((await post('/fb/subscriber/removeTag', { subscriber_id: '501', tag_id: 2 })).status).toBe(200);
    expect(await tagNames()).toEqual(['vip']);
  });

  it('addTagByName / removeTagByName change tags too', async () => {
    await post('/fb/subscriber/addTagByName', { subscriber_id: 501, tag_name: 'vip' });
    expect(await tagNames()).toEqual(['lead', 'vip']);
    await post('/fb/subscriber/removeTagByName', { subscriber_id: 501, tag_name: 'lead' });
    expect(await tagNames()).toEqual(['vip']);
    expect(sb.subscriber(PAGE, '501')?.tags).toEqual(['vip']);
  });

  it('setCustomField (id) and setCustomFieldByName (case-insensitive) store typed values', async () => {
    expect(
      (await post('/fb/subscriber/setCustomField', { subscriber_id: 501, field_id: 11, field_value: 0.75 })).json,
    ).toEqual({ status: 'success' });
    await post('/fb/subscriber/setCustomFieldByName', {
      subscriber_id: 501,
      field_name: 'birthday',
      field_value: '2018-07-18',
    });
    await post('/fb/subscriber/setCustomFieldByName', {
      subscriber_id: 501,
      field_name: 'SEEN_AT',
      field_value: '2018-07-02T00:00:00+00:00',
    });
    await post('/fb/subscriber/setCustomFieldByName', { subscriber_id: 501, field_name: 'opted', field_value: false });
    expect(await fieldValue('Score')).toBe(0.75);
    expect(await fieldValue('Birthday')).toBe('2018-07-18');
    expect(await fieldValue('Seen_At')).toBe('2018-07-02T00:00:00+00:00');
    expect(await fieldValue('Opted')).toBe(false);
    await post('/fb/subscriber/setCustomFieldByName', {
      subscriber_id: 501,
      field_name: 'nickname',
      field_value: null,
    });
    expect(await fieldValue('Nickname')).toBeNull();
  });

  it('setCustomFields applies a batch, and nothing at all when one entry is bad', async () => {
    const ok = await post('/fb/subscriber/setCustomFields', {
      subscriber_id: 501,
      fields: [
        { field_id: 11, field_value: 3 },
        { field_name: 'nickname', field_value: 'Ace' },
      ],
    });
    expect(ok.json).toEqual({ status: 'success' });
    expect(await fieldValue('Score')).toBe(3);
    expect(await fieldValue('Nickname')).toBe('Ace');
    const bad = await post('/fb/subscriber/setCustomFields', {
      subscriber_id: 501,
      fields: [
        { field_id: 11, field_value: 9 },
        { field_name: 'Opted', field_value: 'yes' },
      ],
    });
    expectValidation(bad, /boolean/);
    expect(await fieldValue('Score')).toBe(3);
    const tooMany = Array.from({ length: 21 }, () => ({ field_id: 11, field_value: 1 }));
    expectValidation(
      await post('/fb/subscriber/setCustomFields', { subscriber_id: 501, fields: tooMany }),
      /at most 20/,
    );
    expectValidation(
      await post('/fb/subscriber/setCustomFields', { subscriber_id: 501, fields: [{ field_value: 1 }] }),
      /field_id or field_name/,
    );
  });

  it.each([
    ['missing subscriber_id', '/fb/subscriber/addTag', { tag_id: 1 }, /subscriber_id is required/],
    [
      'non-integer subscriber_id',
      '/fb/subscriber/addTag',
      { subscriber_id: 'abc', tag_id: 1 },
      /subscriber_id must be an integer/,
    ],
    ['unknown subscriber', '/fb/subscriber/addTag', { subscriber_id: 999, tag_id: 1 }, /Subscriber does not exist/],
    ['unknown tag id', '/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 77 }, /Tag does not exist/],
    [
      'unknown tag name',
      '/fb/subscriber/removeTagByName',
      { subscriber_id: 501, tag_name: 'nope' },
      /Tag does not exist/,
    ],
    [
      'unknown field id',
      '/fb/subscriber/setCustomField',
      { subscriber_id: 501, field_id: 99, field_value: 1 },
      /Custom field does not exist/,
    ],
    [
      'unknown field name',
      '/fb/subscriber/setCustomFieldByName',
      { subscriber_id: 501, field_name: 'nope', field_value: 1 },
      /Custom field does not exist/,
    ],
    [
      'missing field_value',
      '/fb/subscriber/setCustomFieldByName',
      { subscriber_id: 501, field_name: 'Score' },
      /field_value is required/,
    ],
    [
      'string for number',
      '/fb/subscriber/setCustomFieldByName',
      { subscriber_id: 501, field_name: 'Score', field_value: '5' },
      /must be a number/,
    ],
    [
      'bad date',
      '/fb/subscriber/setCustomFieldByName',
      { subscriber_id: 501, field_name: 'Birthday', field_value: '18/07/2018' },
      /YYYY-MM-DD/,
    ],
    [
      'datetime without offset',
      '/fb/subscriber/setCustomFieldByName',
      { subscriber_id: 501, field_name: 'Seen_At', field_value: '2018-07-02T00:00:00' },
      /ISO 8601/,
    ],
    [
      'string for boolean',
      '/fb/subscriber/setCustomField',
      { subscriber_id: 501, field_id: 15, field_value: 'true' },
      /boolean/,
    ],
    [
      'number for text',
      '/fb/subscriber/setCustomField',
      { subscriber_id: 501, field_id: 12, field_value: 5 },
      /string/,
    ],
    ['body is an array', '/fb/subscriber/addTag', [1, 2], /JSON object/],
  ])('rejects %s with the validation envelope', async (_name, path, body, fragment) => {
    const before = sb.subscriber(PAGE, '501');
    expectValidation(await post(path, body), fragment);
    expect(sb.subscriber(PAGE, '501')).toEqual(before);
  });

  it('rejects malformed JSON and non-JSON bodies with 400 JSON', async () => {
    expectValidation(await call('POST', '/fb/subscriber/addTag', { raw: '{"subscriber_id": 501,' }), /Malformed JSON/);
    expectValidation(
      await call('POST', '/fb/subscriber/addTag', {
        raw: 'subscriber_id=501&tag_id=1',
        contentType: 'application/x-www-form-urlencoded',
      }),
      /application\/json/,
    );
    expectValidation(await call('GET', '/fb/subscriber/getInfo'), /subscriber_id is required/);
  });

  it('keeps pages apart: page 2 key cannot see page 1 subscribers', async () => {
    expectValidation(
      await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 }, { key: KEY2 }),
      /Subscriber does not exist/,
    );
    expect((await getInfo('901', KEY2)).data.page_id).toBe(PAGE2);
  });
});

describe('ManyChat page API (getFlows, getTags, getCustomFields)', () => {
  it("lists the page's own flows, tags and fields, and only that page's", async () => {
    const flows = await call('GET', '/fb/page/getFlows');
    expect(flows.json).toEqual({
      status: 'success',
      data: { flows: [{ ns: FLOW, name: 'Welcome', folder_id: null }], folders: [] },
    });
    const tags = await call('GET', '/fb/page/getTags');
    expect(tags.json.data).toContainEqual({ id: 2, name: 'lead' });
    const fields = await call('GET', '/fb/page/getCustomFields');
    expect(fields.json.data).toContainEqual({ id: 11, name: 'Score', type: 'number', description: '' });
    expect((await call('GET', '/fb/page/getTags', { key: KEY2 })).json.data).toEqual([{ id: 1, name: 'vip' }]);
    // A flow without a title is listed under its ns.
    expect((await call('GET', '/fb/page/getFlows', { key: KEY2 })).json.data.flows).toEqual([
      { ns: FLOW, name: FLOW, folder_id: null },
    ]);
    expect((await call('GET', '/fb/page/getFlows', { key: 'nope:nope' })).status).toBe(401);
    expect((await call('POST', '/fb/page/getTags', { body: {} })).status).toBe(405);
  });
});

describe('ManyChat auth', () => {
  it('missing or unknown keys answer 401 with the error envelope and are recorded without a page', async () => {
    const missing = await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 }, { key: null });
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ status: 'error', message: expect.stringMatching(/Authorization/) });
    const wrong = await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 }, { key: '1001:secret-x' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.status).toBe('error');
    expect(await tagNames()).toEqual(['lead']);
    const recorded = sb.calls({ path: '/fb/subscriber/addTag' });
    expect(recorded.map((c) => [c.status, c.outcome, c.pageId])).toEqual([
      [401, 'error', undefined],
      [401, 'error', undefined],
    ]);
  });
});

describe('ManyChat sending', () => {
  it('sendContent delivers inside the window, records the body, and applies actions', async () => {
    const data = v2({
      actions: [
        { action: 'add_tag', tag_name: 'vip' },
        { action: 'set_field_value', field_name: 'Score', value: 42 },
        { action: 'unset_field_value', field_name: 'Nickname' },
      ],
      quick_replies: [{ type: 'flow', caption: 'More', target: FLOW }],
    });
    const res = await post('/fb/sending/sendContent', { subscriber_id: 501, data });
    expect(res.json).toEqual({ status: 'success' });
    expect(await tagNames()).toEqual(['lead', 'vip']);
    expect(await fieldValue('Score')).toBe(42);
    expect(await fieldValue('Nickname')).toBeNull();
    const [rec] = sb.calls({ path: '/fb/sending/sendContent' });
    expect(rec).toMatchObject({
      api: 'manychat',
      method: 'POST',
      pageId: PAGE,
      status: 200,
      outcome: 'ok',
      body: { subscriber_id: 501, data },
    });
  });

  it.each([
    [
      '11 messages',
      v2({ messages: Array.from({ length: 11 }, () => ({ type: 'text', text: 'x' })) }),
      /data\.content\.messages: .*10/,
    ],
    [
      '12 quick replies',
      v2({ quick_replies: Array.from({ length: 12 }, () => ({ type: 'flow', caption: 'c', target: FLOW })) }),
      /quick_replies: .*11/,
    ],
    [
      '6 actions',
      v2({ actions: Array.from({ length: 6 }, () => ({ action: 'add_tag', tag_name: 'vip' })) }),
      /actions: .*5/,
    ],
    ['a text message without text', v2({ messages: [{ type: 'text' }] }), /messages\.0\.text/],
    ['version v1', { version: 'v1', content: { messages: [] } }, /data\.version/],
    [
      'a node quick reply',
      v2({ quick_replies: [{ type: 'node', caption: 'c', target: 'n' }] }),
      /not supported via the Public API/,
    ],
    [
      'a flow button to an unknown flow',
      v2({ messages: [{ type: 'text', text: 't', buttons: [{ type: 'flow', caption: 'c', target: 'nope' }] }] }),
      /flow does not exist/,
    ],
    [
      'an action on an unknown tag',
      v2({ actions: [{ action: 'add_tag', tag_name: 'ghost' }] }),
      /actions\.0: Tag does not exist/,
    ],
    [
      'an action with a mistyped value',
      v2({ actions: [{ action: 'set_field_value', field_name: 'Score', value: 'high' }] }),
      /actions\.0: .*number/,
    ],
    [
      'an http external callback',
      v2({ external_message_callback: { url: 'http://example.com/cb' } }),
      /external_message_callback\.url/,
    ],
  ])('sendContent rejects %s', async (_name, data, fragment) => {
    expectValidation(await post('/fb/sending/sendContent', { subscriber_id: 501, data }), fragment);
    expect(await tagNames()).toEqual(['lead']);
  });

  it('sendContent without data is a validation error', async () => {
    expectValidation(await post('/fb/sending/sendContent', { subscriber_id: 501 }), /data is required/);
  });

  it('answers 3011 outside 24 h without message_tag, and succeeds with one', async () => {
    const data = v2({});
    const late = await post('/fb/sending/sendContent', { subscriber_id: 502, data });
    expect(late.status).toBe(400);
    expect(late.json).toMatchObject({ status: 'error', code: 3011 });
    expect(
      (await post('/fb/sending/sendContent', { subscriber_id: 502, data, message_tag: 'ACCOUNT_UPDATE' })).json,
    ).toEqual({ status: 'success' });
    expect((await post('/fb/sending/sendFlow', { subscriber_id: 502, flow_ns: FLOW })).json.code).toBe(3011);
    expect(
      (await post('/fb/sending/sendFlow', { subscriber_id: 502, flow_ns: FLOW, message_tag: 'POST_PURCHASE_UPDATE' }))
        .json,
    ).toEqual({ status: 'success' });
  });

  it('touch (handle or HTTP) reopens the window after an inbound message', async () => {
    const body = { subscriber_id: 502, data: v2({}) };
    expect((await post('/fb/sending/sendContent', body)).json.code).toBe(3011);
    expect((await call('POST', `/__sandbox/subscribers/${PAGE}/502/interaction`, { key: null })).status).toBe(200);
    expect((await post('/fb/sending/sendContent', body)).status).toBe(200);
    expect(sb.touch(PAGE, '503')).toBe(true);
    expect((await post('/fb/sending/sendFlow', { subscriber_id: 503, flow_ns: FLOW })).status).toBe(200);
    expect(sb.touch(PAGE, '404')).toBe(false);
  });

  it('HUMAN_AGENT reaches 7 days only; unknown tags are rejected', async () => {
    const data = v2({});
    expect(
      (await post('/fb/sending/sendContent', { subscriber_id: 502, data, message_tag: 'HUMAN_AGENT' })).status,
    ).toBe(200);
    expect(
      (await post('/fb/sending/sendContent', { subscriber_id: 503, data, message_tag: 'HUMAN_AGENT' })).json.code,
    ).toBe(3011);
    expectValidation(
      await post('/fb/sending/sendContent', { subscriber_id: 502, data, message_tag: 'PROMO' }),
      /message_tag must be one of/,
    );
  });

  it('sendFlow succeeds for a known flow and rejects unknown or missing flow_ns', async () => {
    expect((await post('/fb/sending/sendFlow', { subscriber_id: 501, flow_ns: FLOW })).json).toEqual({
      status: 'success',
    });
    expectValidation(
      await post('/fb/sending/sendFlow', { subscriber_id: 501, flow_ns: 'content_nope' }),
      /Flow does not exist/,
    );
    expectValidation(await post('/fb/sending/sendFlow', { subscriber_id: 501 }), /flow_ns is required/);
    expectValidation(
      await post('/fb/sending/sendFlow', { subscriber_id: 999, flow_ns: FLOW }),
      /Subscriber does not exist/,
    );
  });
});

describe('rate limits', () => {
  it('the 11th addTag within a second gets 429; other endpoints and keys are unaffected', async () => {
    const results = await Promise.all(
      Array.from({ length: 11 }, () => post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 })),
    );
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]!.json).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/10 requests per second/),
    });
    expect((await post('/fb/subscriber/removeTag', { subscriber_id: 501, tag_id: 1 })).status).toBe(200);
    expect((await post('/fb/subscriber/addTag', { subscriber_id: 901, tag_id: 1 }, { key: KEY2 })).status).toBe(200);
    expect(
      sb
        .calls({ path: '/fb/subscriber/addTag', pageId: PAGE })
        .filter((c) => c.status === 429 && c.outcome === 'error'),
    ).toHaveLength(1);
  });

  it('enforceRateLimits: false lets bursts through', async () => {
    await sb.close();
    sb = await startManyChatSandbox({ ...fixtures(), enforceRateLimits: false });
    const results = await Promise.all(
      Array.from({ length: 15 }, () => post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(15).fill(200));
  });

  it('sendFlow is capped at 100 per hour per subscriber', async () => {
    await sb.close();
    let now = Date.parse('2030-01-01T00:00:00Z');
    sb = await startManyChatSandbox({ ...fixtures(now), now: () => now });
    for (let i = 0; i < 100; i++) {
      now += 100; // stay under 20/s
      expect((await post('/fb/sending/sendFlow', { subscriber_id: 501, flow_ns: FLOW })).status).toBe(200);
    }
    now += 100;
    const capped = await post('/fb/sending/sendFlow', { subscriber_id: 501, flow_ns: FLOW });
    expect(capped.status).toBe(429);
    expect(capped.json.message).toMatch(/per hour per subscriber/);
    now += HOUR;
    sb.touch(PAGE, '501'); // keep inside 24 h
    expect((await post('/fb/sending/sendFlow', { subscriber_id: 501, flow_ns: FLOW })).status).toBe(200);
  });
});

describe('fault injection', () => {
  it('429 faults on one path answer with Retry-After, then the endpoint recovers', async () => {
    sb.injectFault({ path: '/fb/sending/sendContent', count: 2, kind: '429', retryAfterSeconds: 7 });
    const body = { subscriber_id: 501, data: v2({}) };
    for (let i = 0; i < 2; i++) {
      const r = await post('/fb/sending/sendContent', body);
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('7');
      expect(r.json.status).toBe('error');
    }
    expect((await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 })).status).toBe(200);
    expect((await post('/fb/sending/sendContent', body)).status).toBe(200);
    expect(sb.calls({ path: '/fb/sending/sendContent' }).map((c) => [c.status, c.outcome])).toEqual([
      [429, 'fault'],
      [429, 'fault'],
      [200, 'ok'],
    ]);
  });

  it('500 faults set over HTTP hit any endpoint, before state changes', async () => {
    const set = await call('POST', '/__sandbox/faults', { body: { count: 1, kind: '500' }, key: null });
    expect(set.status).toBe(201);
    expect((await call('GET', '/__sandbox/faults', { key: null })).json.faults).toEqual([{ count: 1, kind: '500' }]);
    const r = await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 });
    expect(r.status).toBe(500);
    expect(r.json.status).toBe('error');
    expect(await tagNames()).toEqual(['lead']);
    expect((await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 })).status).toBe(200);
  });

  it('the faults route validates its body and names the bad fields', async () => {
    const r = await call('POST', '/__sandbox/faults', { body: { count: 0, kind: '404' }, key: null });
    expect(r.status).toBe(400);
    expect(r.json.issues.map((i: { path: string }) => i.path).sort()).toEqual(['count', 'kind']);
    expect((await call('POST', '/__sandbox/faults', { raw: '{', key: null })).status).toBe(400);
  });

  it('a hang fault never answers: the client timeout fires, the call is recorded, the next call works', async () => {
    sb.injectFault({ path: '/getInfo', count: 1, kind: 'hang' });
    const started = Date.now();
    const err = await call('GET', '/fb/subscriber/getInfo?subscriber_id=501', {
      signal: AbortSignal.timeout(300),
    }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(sb.calls({ path: '/fb/subscriber/getInfo' })).toMatchObject([
      { status: 0, outcome: 'fault', query: { subscriber_id: '501' } },
    ]);
    expect((await getInfo()).status).toBe('success');
  });

  it('close() returns promptly while a call hangs', async () => {
    sb.injectFault({ count: 1, kind: 'hang' });
    const pending = post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 }).then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await sb.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBe('failed');
    sb = await startManyChatSandbox(fixtures()); // afterEach closes this one
  });

  it('502, 503 and 504 faults answer their status (503 with Retry-After) and change nothing', async () => {
    sb.injectFault({ path: '/addTag', count: 1, kind: '502' });
    sb.injectFault({ path: '/addTag', count: 1, kind: '503', retryAfterSeconds: 4 });
    sb.injectFault({ path: '/addTag', count: 1, kind: '504' });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 }));
    expect(answers.map((r) => r.status)).toEqual([502, 503, 504]);
    expect(answers[1]?.headers.get('retry-after')).toBe('4');
    expect(answers.every((r) => r.json.status === 'error')).toBe(true);
    expect(await tagNames()).toEqual(['lead']);
  });

  it('a slow fault performs the call, late: the answer comes after the delay and the state changed', async () => {
    sb.injectFault({ path: '/addTag', count: 1, kind: 'slow', delayMs: 400 });
    const started = Date.now();
    const r = await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(r.status).toBe(200);
    expect((await tagNames()).sort()).toEqual(['lead', 'vip'].sort());
    expect(sb.calls({ path: '/fb/subscriber/addTag' })).toMatchObject([{ status: 200, outcome: 'ok' }]);
  });

  it('a slow fault whose client gives up still performs the call (the caller cannot know)', async () => {
    sb.injectFault({ path: '/addTag', count: 1, kind: 'slow', delayMs: 500 });
    const err = await post(
      '/fb/subscriber/addTag',
      { subscriber_id: 501, tag_id: 1 },
      { signal: AbortSignal.timeout(100) },
    ).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
    await new Promise((r) => setTimeout(r, 100));
    expect((await tagNames()).length).toBe(2);
  });

  it('page-scoped faults only hit that page', async () => {
    sb.injectFault({ pageId: PAGE2, count: 1, kind: '500' });
    expect((await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 })).status).toBe(200);
    expect((await post('/fb/subscriber/addTag', { subscriber_id: 901, tag_id: 1 }, { key: KEY2 })).status).toBe(500);
  });
});

describe('control routes', () => {
  it('GET /__sandbox/calls lists every call and filters by pageId, path and since', async () => {
    await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 });
    await post('/fb/subscriber/addTag', { subscriber_id: 901, tag_id: 1 }, { key: KEY2 });
    await post('/fb/subscriber/addTag', { subscriber_id: 999, tag_id: 1 });
    await call('GET', '/fb/subscriber/getInfo?subscriber_id=501');
    const all = (await call('GET', '/__sandbox/calls', { key: null })).json.calls as RecordedCall[];
    expect(all.map((c) => [c.path, c.status])).toEqual([
      ['/fb/subscriber/addTag', 200],
      ['/fb/subscriber/addTag', 200],
      ['/fb/subscriber/addTag', 400],
      ['/fb/subscriber/getInfo', 200],
    ]);
    expect(all[2]).toMatchObject({ outcome: 'error', body: { subscriber_id: 999 }, response: { status: 'error' } });
    expect(Number.isNaN(Date.parse(all[0]!.at))).toBe(false);
    const byPage = (await call('GET', `/__sandbox/calls?pageId=${PAGE2}`, { key: null })).json.calls as RecordedCall[];
    expect(byPage.map((c) => c.body)).toEqual([{ subscriber_id: 901, tag_id: 1 }]);
    const byPath = (await call('GET', '/__sandbox/calls?path=/fb/subscriber/getInfo', { key: null })).json
      .calls as RecordedCall[];
    expect(byPath).toHaveLength(1);
    const since = (await call('GET', `/__sandbox/calls?since=${all[1]!.seq}`, { key: null })).json
      .calls as RecordedCall[];
    expect(since.map((c) => c.seq)).toEqual([all[2]!.seq, all[3]!.seq]);
    expect((await call('GET', '/__sandbox/calls?since=abc', { key: null })).status).toBe(400);
  });

  it('reset clears calls and faults but keeps subscriber state', async () => {
    await post('/fb/subscriber/addTag', { subscriber_id: 501, tag_id: 1 });
    sb.injectFault({ count: 5, kind: '500' });
    expect((await call('POST', '/__sandbox/reset', { key: null })).json).toEqual({ ok: true });
    expect(sb.calls()).toEqual([]);
    expect(sb.faults()).toEqual([]);
    expect(await tagNames()).toEqual(['lead', 'vip']);
    sb.reset();
    expect(sb.calls()).toEqual([]);
  });

  it('adds pages and subscribers over HTTP, rejecting bad fixtures by field name', async () => {
    const page = { pageId: '3003', apiKey: '3003:s3', tags: [{ id: 5, name: 'new' }] };
    expect((await call('POST', '/__sandbox/pages', { body: page, key: null })).status).toBe(201);
    expect(
      (await call('POST', '/__sandbox/subscribers', { body: { pageId: '3003', id: '77', tags: ['new'] }, key: null }))
        .status,
    ).toBe(201);
    expect((await getInfo('77', '3003:s3')).data.tags).toEqual([{ id: 5, name: 'new' }]);
    const badKey = await call('POST', '/__sandbox/pages', { body: { pageId: '4004', apiKey: 'nocolon' }, key: null });
    expect(badKey.status).toBe(400);
    expect(badKey.json.issues).toEqual([{ path: 'apiKey', message: expect.stringMatching(/<pageId>:<secret>/) }]);
    const badSub = await call('POST', '/__sandbox/subscribers', {
      body: { pageId: '3003', id: '78', tags: ['ghost'] },
      key: null,
    });
    expect(badSub.json.issues).toEqual([{ path: 'tags.0', message: expect.stringMatching(/unknown tag/) }]);
    const badId = await call('POST', '/__sandbox/subscribers', { body: { pageId: '3003', id: 'x' }, key: null });
    expect(badId.json.issues[0].path).toBe('id');
    expect((await call('POST', '/__sandbox/pages', { raw: 'nope', key: null })).status).toBe(400);
    expect(() => sb.addSubscriber({ pageId: '9999', id: '1' })).toThrow(/unknown page/);
  });

  it('unknown paths answer 404 JSON and wrong methods 405', async () => {
    const mc = await call('GET', '/fb/page/getWidgets');
    expect(mc.status).toBe(404);
    expect(mc.json.status).toBe('error');
    expect((await call('GET', '/nowhere')).status).toBe(404);
    expect((await call('GET', '/__sandbox/nothing', { key: null })).status).toBe(404);
    expect((await call('GET', '/fb/sending/sendContent')).status).toBe(405);
  });

  it('never crashes on junk input', async () => {
    const paths = Object.keys({
      '/fb/sending/sendContent': 0,
      '/fb/sending/sendFlow': 0,
      '/fb/subscriber/addTag': 0,
      '/fb/subscriber/addTagByName': 0,
      '/fb/subscriber/setCustomField': 0,
      '/fb/subscriber/setCustomFieldByName': 0,
      '/fb/subscriber/setCustomFields': 0,
    });
    const junk: unknown[] = [
      null,
      1,
      'x',
      [],
      {},
      { subscriber_id: {} },
      { subscriber_id: 501, data: { version: 'v2', content: null } },
      { subscriber_id: 501, fields: [null, 3] },
      { subscriber_id: 501, tag_name: ['vip'] },
      { subscriber_id: 501, field_id: 11, field_value: { a: 1 } },
      {
        subscriber_id: 501,
        data: v2({
          messages: [
            { type: 'cards', elements: [{ title: 't', buttons: [{ type: 'node', caption: 'c', target: 'n' }] }] },
          ],
        }),
      },
    ];
    await sb.close();
    sb = await startManyChatSandbox({ ...fixtures(), enforceRateLimits: false }); // every answer must be a validation error, not a 429
    for (const path of paths) {
      for (const body of junk) {
        const r = await fetch(`${sb.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(r.status).toBe(400);
        expect(((await r.json()) as { status: string }).status).toBe('error');
      }
    }
    const g = await fetch(`${sb.url}/v23.0/me/messages?access_token=${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[]',
    });
    expect(g.status).toBe(400);
    expect((await getInfo()).status).toBe('success');
  });
});

describe('Messenger Send API', () => {
  it('sends via /vX/<page>/messages and /me/messages and records the call with the token redacted', async () => {
    const body = {
      recipient: { id: '501' },
      messaging_type: 'RESPONSE',
      message: { text: 'hello', quick_replies: [{ content_type: 'text', title: 'Yes', payload: 'Y' }] },
    };
    const a = await graph(`/v23.0/${PAGE}/messages`, body);
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ recipient_id: '501', message_id: expect.stringMatching(/^m_/) });
    const b = await graph('/v23.0/me/messages', body);
    expect(b.json.message_id).not.toBe(a.json.message_id);
    const typing = await graph('/me/messages', { recipient: { id: '501' }, sender_action: 'typing_on' });
    expect(typing.json).toEqual({ recipient_id: '501' });
    const recs = sb.calls({ api: 'messenger' });
    expect(recs).toHaveLength(3);
    expect(recs[0]).toMatchObject({
      api: 'messenger',
      pageId: PAGE,
      path: `/v23.0/${PAGE}/messages`,
      query: { access_token: '[redacted]' },
      body,
      status: 200,
      outcome: 'ok',
    });
    expect(JSON.stringify(recs)).not.toContain(TOKEN);
  });

  it("answers GET /me with the page a token belongs to (the dashboard's token check), code 190 for an unknown token", async () => {
    const me = (token: string | null) =>
      fetch(`${sb.url}/v23.0/me?fields=id,name`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const known = await me(TOKEN);
    expect(known.status).toBe(200);
    expect(await known.json()).toEqual({ id: PAGE, name: `Sandbox page ${PAGE}` });
    const unknown = await me('EAAnotAToken');
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(190);
    expect(((await (await me(null)).json()) as { error: { code: number } }).error.code).toBe(2500);
  });

  it('serves the Handover Protocol: pass, take and release thread control with Graph errors', async () => {
    expect(
      (
        await graph('/v23.0/me/pass_thread_control', {
          recipient: { id: '501' },
          target_app_id: '263902037430900',
          metadata: 'handoff',
        })
      ).json,
    ).toEqual({ success: true });
    // The Page Inbox holds the thread: this app cannot release it, only take it back.
    const release = await graph('/v23.0/me/release_thread_control', { recipient: { id: '501' } });
    expect(release.status).toBe(400);
    expect(release.json.error).toMatchObject({ code: 10, type: 'OAuthException' });
    expect((await graph('/v23.0/me/take_thread_control', { recipient: { id: '501' } })).json).toEqual({
      success: true,
    });
    expect((await graph('/v23.0/me/release_thread_control', { recipient: { id: '501' } })).json).toEqual({
      success: true,
    });
    const noTarget = await graph('/v23.0/me/pass_thread_control', { recipient: { id: '501' } });
    expect(noTarget.json.error).toMatchObject({ code: 100, message: expect.stringContaining('target_app_id') });
    expect(
      (await graph('/v23.0/me/pass_thread_control', { recipient: { id: '501' }, target_app_id: 'inbox' })).json.error
        .code,
    ).toBe(100);
    expect((await graph('/v23.0/me/take_thread_control', { recipient: { id: '999' } })).json.error).toMatchObject({
      code: 100,
      error_subcode: 2018001,
    });
    expect((await graph('/v23.0/me/take_thread_control', { recipient: { id: '501' } }, 'wrong')).json.error.code).toBe(
      190,
    );
    expect(sb.calls({ api: 'messenger' }).map((c) => c.path)).toContain('/v23.0/me/pass_thread_control');
  });

  it('answers code 10 / 2018278 outside 24 h unless MESSAGE_TAG with a tag', async () => {
    const base = { recipient: { id: '502' }, message: { text: 'late' } };
    const late = await graph('/v23.0/me/messages', { ...base, messaging_type: 'UPDATE' });
    expect(late.status).toBe(400);
    expect(late.json.error).toMatchObject({ code: 10, error_subcode: 2018278, type: 'OAuthException' });
    expect(
      (await graph('/v23.0/me/messages', { ...base, messaging_type: 'MESSAGE_TAG', tag: 'ACCOUNT_UPDATE' })).status,
    ).toBe(200);
    expect((await graph('/v23.0/me/messages', { ...base, messaging_type: 'MESSAGE_TAG' })).json.error.code).toBe(100);
    expect(
      (
        await graph('/v23.0/me/messages', {
          ...base,
          recipient: { id: '503' },
          messaging_type: 'MESSAGE_TAG',
          tag: 'HUMAN_AGENT',
        })
      ).json.error.error_subcode,
    ).toBe(2018278);
  });

  it('rejects bad, missing and foreign tokens Graph-style', async () => {
    const body = { recipient: { id: '501' }, messaging_type: 'RESPONSE', message: { text: 'x' } };
    const bad = await graph('/v23.0/me/messages', body, 'wrong');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: 'OAuthException', code: 190 });
    expect((await graph('/v23.0/me/messages', body, null)).json.error.code).toBe(2500);
    expect((await graph(`/v23.0/${PAGE2}/messages`, body)).json.error).toMatchObject({ code: 100, error_subcode: 33 });
    expect(sb.calls({ api: 'messenger' }).every((c) => c.outcome === 'error')).toBe(true);
  });

  it.each([
    ['no recipient', { messaging_type: 'RESPONSE', message: { text: 'x' } }, /recipient is required/],
    ['no messaging_type', { recipient: { id: '501' }, message: { text: 'x' } }, /messaging_type/],
    [
      'message and sender_action',
      { recipient: { id: '501' }, messaging_type: 'RESPONSE', message: { text: 'x' }, sender_action: 'typing_on' },
      /either message or state/,
    ],
    ['empty message', { recipient: { id: '501' }, messaging_type: 'RESPONSE', message: {} }, /cannot be empty/],
    [
      'text over 2000',
      { recipient: { id: '501' }, messaging_type: 'RESPONSE', message: { text: 'x'.repeat(2001) } },
      /2000/,
    ],
    [
      '14 quick replies',
      {
        recipient: { id: '501' },
        messaging_type: 'RESPONSE',
        message: {
          text: 'x',
          quick_replies: Array.from({ length: 14 }, () => ({ content_type: 'text', title: 't', payload: 'p' })),
        },
      },
      /at most 13/,
    ],
    [
      'unknown recipient',
      { recipient: { id: '777' }, messaging_type: 'RESPONSE', message: { text: 'x' } },
      /No matching user/,
    ],
  ])('rejects %s with a Graph (#100) error', async (_name, body, fragment) => {
    const r = await graph('/v23.0/me/messages', body);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(100);
    expect(r.json.error.message).toMatch(fragment);
  });

  it('takes the same fault injection, with Graph-style error bodies', async () => {
    sb.injectFault({ path: '/messages', count: 1, kind: '500' });
    const body = { recipient: { id: '501' }, messaging_type: 'RESPONSE', message: { text: 'x' } };
    const r = await graph('/v23.0/me/messages', body);
    expect(r.status).toBe(500);
    expect(r.json.error).toMatchObject({ is_transient: true });
    expect((await graph('/v23.0/me/messages', body)).status).toBe(200);
    expect(sb.calls({ api: 'messenger' }).map((c) => c.outcome)).toEqual(['fault', 'ok']);
  });
});

import { describe, expect, it } from 'vitest';
import { classifyResponse, createManyChatClient, parseRetryAfter } from './manychat-client.js';

/** The client's classification, with a scripted fetch: no network, runs in workerd. */
interface Seen {
  url: string;
  headers: Headers;
  body: unknown;
}

function scripted(answer: (seen: Seen) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const s = {
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body ?? 'null')) as unknown,
    };
    seen.push(s);
    return answer(s);
  };
  return {
    seen,
    client: createManyChatClient({
      baseUrl: 'https://mc.example/',
      apiKey: '123:secret-key',
      fetch: fetchImpl,
      timeoutMs: 200,
    }),
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('ManyChat client requests', () => {
  it('sends each call to its endpoint with the bearer key and a numeric subscriber id', async () => {
    const { seen, client } = scripted(() => json(200, { status: 'success' }));
    expect(await client.sendFlow('4242', 'content123')).toEqual({ ok: true });
    await client.sendContent('4242', { text: 'Hi' }, 'ACCOUNT_UPDATE');
    await client.addTagByName('4242', 'vip');
    await client.removeTagByName('4242', 'vip');
    await client.setCustomFieldByName('4242', 'goal', 3);
    expect(seen.map((s) => s.url)).toEqual([
      'https://mc.example/fb/sending/sendFlow',
      'https://mc.example/fb/sending/sendContent',
      'https://mc.example/fb/subscriber/addTagByName',
      'https://mc.example/fb/subscriber/removeTagByName',
      'https://mc.example/fb/subscriber/setCustomFieldByName',
    ]);
    expect(seen[0]?.headers.get('authorization')).toBe('Bearer 123:secret-key');
    expect(seen[0]?.headers.get('content-type')).toBe('application/json');
    expect(seen.map((s) => s.body)).toEqual([
      { subscriber_id: 4242, flow_ns: 'content123' },
      {
        subscriber_id: 4242,
        data: { version: 'v2', content: { messages: [{ type: 'text', text: 'Hi' }], actions: [], quick_replies: [] } },
        message_tag: 'ACCOUNT_UPDATE',
      },
      { subscriber_id: 4242, tag_name: 'vip' },
      { subscriber_id: 4242, tag_name: 'vip' },
      { subscriber_id: 4242, field_name: 'goal', field_value: 3 },
    ]);
  });

  it('a call that never answers is cut off by the timeout and reported as timeout (outcome unknown)', async () => {
    const fetchImpl: typeof fetch = (_input, init) =>
      new Promise<Response>((_resolve, reject) => {
        // Like a hung server: only the client's signal ends the wait.
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
      });
    const client = createManyChatClient({
      baseUrl: 'https://mc.example',
      apiKey: 'k',
      fetch: fetchImpl,
      timeoutMs: 50,
    });
    const started = Date.now();
    expect(await client.sendFlow('1', 'f')).toEqual({ ok: false, kind: 'timeout', message: 'no answer within 50 ms' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('an aborted fetch (the timeout) and a network failure are both timeout', async () => {
    const timeout = scripted(() => Promise.reject(new DOMException('The operation timed out.', 'TimeoutError')));
    expect(await timeout.client.sendFlow('1', 'f')).toEqual({
      ok: false,
      kind: 'timeout',
      message: 'no answer within 200 ms',
    });
    const network = scripted(() => Promise.reject(new TypeError('fetch failed')));
    expect(await network.client.addTagByName('1', 't')).toEqual({
      ok: false,
      kind: 'timeout',
      message: 'request failed (TypeError)',
    });
  });

  it('never puts the API key in a result', async () => {
    const { client } = scripted(() => json(401, { status: 'error', message: 'Unauthorized: invalid API key' }));
    expect(JSON.stringify(await client.sendFlow('1', 'f'))).not.toContain('secret-key');
  });
});

describe('classifyResponse', () => {
  it('success only with the "success" status string', () => {
    expect(classifyResponse(200, '{"status":"success"}', null)).toEqual({ ok: true });
    expect(classifyResponse(200, '{"status":"error","message":"Flow does not exist"}', null)).toEqual({
      ok: false,
      kind: 'permanent',
      status: 200,
      message: 'Flow does not exist',
    });
    // Accepted but not confirmed: may have happened.
    expect(classifyResponse(200, '<html>', null)).toMatchObject({ ok: false, kind: 'timeout' });
    expect(classifyResponse(204, '', null)).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('429 and 503 are refusals: retryable, carrying Retry-After', () => {
    expect(classifyResponse(429, '{"status":"error","message":"Too many requests"}', '7')).toEqual({
      ok: false,
      kind: 'retryable',
      status: 429,
      message: 'Too many requests',
      retryAfterSeconds: 7,
    });
    expect(classifyResponse(503, '{"status":"error","message":"down"}', '3')).toEqual({
      ok: false,
      kind: 'retryable',
      status: 503,
      message: 'down',
      retryAfterSeconds: 3,
    });
  });

  it('400/401/404 errors are permanent with the API words and code (3011 outside 24 h)', () => {
    expect(
      classifyResponse(
        400,
        '{"status":"error","message":"Subscriber last interaction was more than 24 hours ago","code":3011}',
        null,
      ),
    ).toEqual({
      ok: false,
      kind: 'permanent',
      status: 400,
      message: 'Subscriber last interaction was more than 24 hours ago',
      code: 3011,
    });
    expect(
      classifyResponse(
        400,
        JSON.stringify({
          status: 'error',
          message: 'Validation error',
          details: { messages: [{ message: 'subscriber_id is required' }] },
        }),
        null,
      ),
    ).toMatchObject({
      kind: 'permanent',
      message: 'Validation error; subscriber_id is required',
    });
    expect(classifyResponse(401, '{"status":"error","message":"Unauthorized"}', null)).toMatchObject({
      kind: 'permanent',
      status: 401,
    });
    expect(classifyResponse(404, '', null)).toMatchObject({ kind: 'permanent', status: 404, message: 'HTTP 404' });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, capped at a day', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('12')).toBe(12);
    expect(parseRetryAfter('999999')).toBe(86_400);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('server errors and gateway timeouts are ambiguous; only 429 and 503 are refusals', () => {
  it('500, 502, 504, 408 and other 5xx may have been performed: timeout (a send becomes unknown, never resent)', () => {
    for (const status of [408, 500, 501, 502, 504, 520])
      expect(classifyResponse(status, '', null)).toMatchObject({
        ok: false,
        kind: 'timeout',
        message: expect.stringContaining(`HTTP ${status}`),
      });
    expect(classifyResponse(500, '{"status":"error","message":"oops"}', null)).toEqual({
      ok: false,
      kind: 'timeout',
      message: 'HTTP 500: oops',
    });
    for (const status of [429, 503])
      expect(classifyResponse(status, '', null)).toMatchObject({ ok: false, kind: 'retryable', status });
  });
});

import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../core/actions/channel-api.js';
import { postJson } from './post-json.js';

/** A response whose status arrives and whose body stream then fails. */
function cutOff(status: number): Response {
  const body = new ReadableStream({ start: (controller) => controller.error(new TypeError('connection reset')) });
  return new Response(body, { status });
}

const seen: [number, string][] = [];
const classify = (status: number, text: string): ApiResult => (
  seen.push([status, text]),
  status === 200 ? { ok: true } : { ok: false, kind: 'permanent', status, message: `HTTP ${status}` }
);
const post = (fetch: typeof globalThis.fetch) =>
  postJson({
    fetch,
    url: 'https://api.example.test/x?token=SECRET',
    bearerToken: 'k',
    body: { a: 1 },
    timeoutMs: 50,
    classify,
  });

describe('postJson: one channel API call, and what counts as unknown', () => {
  it('sends JSON with the bearer token and classifies the answer', async () => {
    let sent: Request | null = null;
    const result = await post(
      async (input, init) => ((sent = new Request(input, init)), new Response('{"ok":1}', { status: 200 })),
    );
    expect(result).toEqual({ ok: true });
    expect(sent!.headers.get('authorization')).toBe('Bearer k');
    expect(sent!.headers.get('content-type')).toBe('application/json');
    expect(await sent!.json()).toEqual({ a: 1 });
  });

  it('a 2xx whose body is cut off confirms nothing: unknown, never success', async () => {
    expect(await post(async () => cutOff(200))).toEqual({
      ok: false,
      kind: 'timeout',
      message: 'response body was cut off',
    });
  });

  it('a refusal whose body is cut off is still judged by its status', async () => {
    seen.length = 0;
    expect(await post(async () => cutOff(400))).toEqual({
      ok: false,
      kind: 'permanent',
      status: 400,
      message: 'HTTP 400',
    });
    expect(seen).toEqual([[400, '']]);
  });

  it('no answer in time is unknown; a failed connection names the error, never the URL', async () => {
    const never = (_: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    expect(await post(never)).toEqual({ ok: false, kind: 'timeout', message: 'no answer within 50 ms' });
    const failed = await post(async () =>
      Promise.reject(new TypeError('fetch failed for https://api.example.test/x?token=SECRET')),
    );
    expect(failed).toEqual({ ok: false, kind: 'timeout', message: 'request failed (TypeError)' });
  });
});

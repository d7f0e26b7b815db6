import type { ApiResult } from '../core/actions/channel-api.js';

export interface JsonPost {
  fetch: typeof fetch;
  url: string;
  bearerToken: string;
  body: Record<string, unknown>;
  timeoutMs: number;
  /** Judges an answer (status, body text, Retry-After) the way the API's contract reads it. */
  classify: (status: number, text: string, retryAfter: string | null) => ApiResult;
}

/**
 * One POST of a channel API (ManyChat, the Messenger Send API): JSON with a bearer token and a
 * timeout. What could have been performed without our knowing is `timeout` (unknown), never a
 * failure: no answer in time, a connection lost after the request may have been sent, or a 2xx
 * whose body was cut off before it confirmed anything.
 */
export async function postJson(post: JsonPost): Promise<ApiResult> {
  let res: Response;
  try {
    res = await post.fetch(post.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${post.bearerToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(post.body),
      signal: AbortSignal.timeout(post.timeoutMs),
    });
  } catch (err) {
    // The error's name only: its message could echo the URL, and with it a token.
    const name = err instanceof Error ? err.name : 'Error';
    return {
      ok: false,
      kind: 'timeout',
      message: name === 'TimeoutError' ? `no answer within ${post.timeoutMs} ms` : `request failed (${name})`,
    };
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    return res.status >= 200 && res.status < 300
      ? { ok: false, kind: 'timeout', message: 'response body was cut off' }
      : post.classify(res.status, '', res.headers.get('retry-after'));
  }
  return post.classify(res.status, text, res.headers.get('retry-after'));
}

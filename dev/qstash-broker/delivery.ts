import { DAY_MS, parseRetryAfter } from './parse.js';
import { signDelivery } from './sign.js';
import type { Message, Outcome } from './types.js';
import { headerLists } from './views.js';

export const errorText = (err: unknown) =>
  err instanceof Error
    ? err.cause instanceof Error
      ? `${err.message}: ${err.cause.message}`
      : err.message
    : String(err);

/**
 * One HTTP attempt of a message, signed as QStash signs it. `inflight` lets the engine abort every
 * attempt on close. A thrown fetch (refused, timed out, aborted) becomes an Outcome with `error`.
 */
export async function sendAttempt(
  msg: Message,
  retried: number,
  signingKey: string,
  inflight: Set<AbortController>,
): Promise<Outcome> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error(`timed out after ${msg.timeoutMs} ms`)), msg.timeoutMs);
  inflight.add(ac);
  try {
    const body = msg.method === 'GET' || msg.method === 'HEAD' ? new Uint8Array() : msg.body;
    const headers = new Headers(msg.header);
    headers.set('Upstash-Signature', await signDelivery(signingKey, msg.url, body));
    headers.set('Upstash-Message-Id', msg.messageId);
    headers.set('Upstash-Retried', String(retried));
    headers.set('User-Agent', 'Upstash-QStash');
    if (msg.callerIp) headers.set('Upstash-Caller-Ip', msg.callerIp);
    if (msg.scheduleId) headers.set('Upstash-Schedule-Id', msg.scheduleId);
    // redirect: manual, so a 3xx counts as a failed attempt instead of silently turning POST into GET.
    const res = await fetch(msg.url, {
      method: msg.method,
      headers,
      body: body.length ? body : undefined,
      signal: ac.signal,
      redirect: 'manual',
    });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  } catch (err) {
    return { error: ac.signal.aborted ? errorText(ac.signal.reason) : errorText(err) };
  } finally {
    clearTimeout(timer);
    inflight.delete(ac);
  }
}

/** The JSON body QStash POSTs to `Upstash-Callback` / `Upstash-Failure-Callback` (B4). */
export function callbackPayload(
  msg: Message,
  outcome: Outcome,
  retried: number,
  dlqId?: string,
): Record<string, unknown> {
  return {
    status: outcome.status ?? 0,
    header: headerLists(outcome.headers ?? []),
    body: (outcome.body ?? Buffer.alloc(0)).toString('base64'),
    retried,
    maxRetries: msg.maxRetries,
    sourceMessageId: msg.messageId,
    url: msg.url,
    method: msg.method,
    sourceHeader: headerLists(Object.entries(msg.header)),
    sourceBody: msg.body.toString('base64'),
    notBefore: msg.notBefore,
    createdAt: msg.createdAt,
    callerIP: msg.callerIp ?? '',
    ...(msg.scheduleId === undefined ? {} : { scheduleId: msg.scheduleId }),
    ...(dlqId === undefined ? {} : { dlqId }),
  };
}

/** Retry-After beats Upstash-Retry-Delay beats the dev backoff min(base·2^n, max). */
export function retryDelayMs(
  msg: Message,
  retried: number,
  outcome: Outcome,
  cfg: { retryBaseMs: number; maxRetryDelayMs: number },
): number {
  const fromHeader = parseRetryAfter(outcome.headers?.get('retry-after') ?? null, Date.now());
  if (fromHeader !== undefined) return fromHeader;
  if (msg.retryDelay) {
    const ms = msg.retryDelay.fn(retried);
    if (Number.isFinite(ms)) return Math.min(Math.max(0, Math.round(ms)), DAY_MS);
  }
  return Math.min(cfg.retryBaseMs * 2 ** retried, cfg.maxRetryDelayMs);
}

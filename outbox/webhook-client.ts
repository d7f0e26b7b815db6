import type { ApiResult, WebhookApi } from '../core/actions/channel-api.js';
import { parseRetryAfter } from './manychat-client.js';
import { signingSecrets, type SecretsInput } from '../core/security/signing-keys.js';

/**
 * POSTs to a tenant's own endpoint, signed as Standard Webhooks (standardwebhooks.com) sign:
 * headers `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64
 * HMAC-SHA256 over "<id>.<timestamp>.<body>">`, keyed with the bytes of a `whsec_<base64>`
 * secret. Any Standard Webhooks library verifies it (and rejects a timestamp more than five
 * minutes off, so a captured request cannot be replayed later). Hand-written because the
 * `standardwebhooks` package is not a dependency here and the scheme is one HMAC.
 */
export const WEBHOOK_TIMEOUT_MS = 10_000;

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

async function hmac(keyBytes: Uint8Array, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message)));
}

/**
 * The tenant's webhook secret, derived (HMAC-SHA-256) from the Worker's SESSION_SECRET and the
 * tenant id: nothing to store, different per tenant, and one tenant's secret says nothing about
 * another's or about SESSION_SECRET. Rotating SESSION_SECRET rotates every tenant's.
 */
export async function tenantWebhookSecret(sessionSecret: string, tenantId: string): Promise<string> {
  return `whsec_${base64(await hmac(new TextEncoder().encode(sessionSecret), `tenant-webhook:${tenantId}`))}`;
}

/**
 * The secrets a notification is signed with: the current one and, while SESSION_SECRET is being
 * rotated, the previous one. Standard Webhooks carries several space-separated signatures, and a
 * receiver accepts any that verifies: an endpoint still holding the old secret keeps verifying
 * until the tenant copies the new one. (Kept on its own derivation, not the per-purpose keys of
 * core/security/signing-keys.ts: tenants' endpoints hold these secrets, and changing the
 * derivation would break every one of them at once.)
 */
export async function tenantWebhookSecrets(secrets: SecretsInput, tenantId: string): Promise<string[]> {
  const { current, previous } = signingSecrets(secrets);
  const all = previous && previous !== current ? [current, previous] : [current];
  return Promise.all(all.map((s) => tenantWebhookSecret(s, tenantId)));
}

/** The `webhook-signature` value for one message. */
export async function standardWebhookSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const keyBytes = Uint8Array.from(atob(secret.replace(/^whsec_/, '')), (c) => c.charCodeAt(0));
  return `v1,${base64(await hmac(keyBytes, `${id}.${timestamp}.${body}`))}`;
}

/** Every secret's `v1,<sig>`, space-separated (Standard Webhooks' form for several signatures). */
async function signatures(
  secrets: string | readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const all = typeof secrets === 'string' ? [secrets] : secrets;
  return (await Promise.all(all.map((s) => standardWebhookSignature(s, id, timestamp, body)))).join(' ');
}

/** Like the ManyChat client: 2xx done; 429/503 refused (retry); 408/5xx/no answer unknown (retried: the kind is idempotent); other 4xx dead. */
export function classifyWebhookResponse(status: number, text: string, retryAfter: string | null): ApiResult {
  const said = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  if (status >= 200 && status < 300) return { ok: true };
  if (status === 429 || status === 503) {
    const retryAfterSeconds = parseRetryAfter(retryAfter);
    return {
      ok: false,
      kind: 'retryable',
      status,
      message: `HTTP ${status}${said ? `: ${said}` : ''}`,
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    };
  }
  if (status === 408 || status >= 500)
    return { ok: false, kind: 'timeout', message: `HTTP ${status}${said ? `: ${said}` : ''}` };
  return {
    ok: false,
    kind: 'permanent',
    status,
    message: `the endpoint answered HTTP ${status}${said ? `: ${said}` : ''}`,
  };
}

/** `secret`: the `whsec_…` secret(s) a message is signed with, or how to get them (derived when first needed). */
export function createWebhookClient(opts: {
  secret: string | readonly string[] | (() => Promise<string | readonly string[]>);
  fetch: typeof fetch;
  timeoutMs?: number;
  now?: () => number;
  /** The tenant's sealed notification URL, opened (a Slack incoming webhook); absent when it set none. */
  sealedUrl?: string | undefined;
}): WebhookApi {
  const api: WebhookApi = {
    async postToSealedUrl(body, messageId) {
      if (!opts.sealedUrl)
        return {
          ok: false,
          kind: 'permanent',
          status: 0,
          message:
            'the tenant has no notification URL: set the sealed secret notificationUrl (or a url in notifications.approvals)',
        };
      return api.post(opts.sealedUrl, body, messageId);
    },
    async post(url, body, messageId) {
      const timestamp = Math.floor((opts.now ?? Date.now)() / 1000);
      let res: Response;
      try {
        res = await opts.fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': messageId,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': await signatures(
              typeof opts.secret === 'function' ? await opts.secret() : opts.secret,
              messageId,
              timestamp,
              body,
            ),
          },
          body,
          signal: AbortSignal.timeout(opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
        });
      } catch (err) {
        return { ok: false, kind: 'timeout', message: err instanceof Error ? err.name : 'fetch failed' };
      }
      return classifyWebhookResponse(res.status, await res.text().catch(() => ''), res.headers.get('retry-after'));
    },
  };
  return api;
}

import type { Context } from 'hono';
import type { InboundRetryJob } from '../../../core/inbound-retry-job.js';
import { runtimeWords } from '../../../core/runtime-words.js';
import { keyedHash } from '../../../core/security/keyed-hash.js';
import { verifyCallback } from '../../approvals/callback-signature.js';
import { jsonError, parseJsonText } from '../../http/errors.js';
import { storageUnavailable } from '../../http/middleware/tenant.js';
import { isolateOutageKeeps } from '../../http/outage-keep-budget.js';
import { contactChannel } from './contact-channel.js';
import { toDynamicBlock } from './dynamic-block.js';
import { contactLanguage, inboundOf, manyChatMessageOf } from './inbound-of.js';
import { parseManyChatWebhook } from './inbound-schema.js';
import { WEBHOOK_SECRET_HEADER, type ManyChatContext } from './manychat-context.js';
import { sessionSecrets } from '../../env.js';

type KeepContext = Context<ManyChatContext>;

/**
 * Redis does not answer: the message is handed to QStash (an inbound retry, run once when Redis is
 * back, its reply through the outbox) and the contact gets the holding reply now. If QStash
 * refuses too, a clear 503.
 */
export async function keepThroughOutage(c: KeepContext, job: InboundRetryJob, holdingReply: string): Promise<Response> {
  try {
    await c.get('services').inboundRetries().publishInboundRetry(job);
  } catch (err) {
    console.error(
      `inbound retry for tenant ${job.inbound.tenantId} could not be published: ${err instanceof Error ? err.name : 'Error'}`,
    );
    c.header('Retry-After', '30');
    return jsonError(c, 503, 'storage is unavailable and the message could not be kept; retry later');
  }
  c.header('x-turn-deferred', '1');
  c.header('x-storage-down', '1');
  return c.json(toDynamicBlock({ text: holdingReply }, [], job.inbound.surface));
}

/**
 * Redis does not answer and this isolate has never read the tenant (most isolates are cold), so
 * the secret header cannot be checked now. The message is still kept — ManyChat does not retry —
 * as an inbound retry that carries the header's keyed hash (never the secret) and is authenticated
 * against the tenant when it runs, before anything else; what fails is dropped there with no turn.
 * A button we signed is authenticated now (its HMAC needs no tenant). So that forged requests
 * cannot fill QStash, unauthenticated keeps spend this isolate's per-tenant budget; past it, the
 * 503 of before. Nothing in the answer tells whether the tenant exists or the secret is right.
 */
export async function keepForUnknownTenant(c: KeepContext, tenantId: string): Promise<Response> {
  const provided = c.req.header(WEBHOOK_SECRET_HEADER);
  const missing = () => jsonError(c, 401, `missing ${WEBHOOK_SECRET_HEADER} header`);
  const json = parseJsonText(await c.req.text());
  if (!json.ok) return provided === undefined ? missing() : jsonError(c, 400, json.error);
  const parsed = parseManyChatWebhook(json.value);
  if (!parsed.ok)
    return provided === undefined ? missing() : jsonError(c, 400, 'invalid ManyChat webhook body', parsed.problems);
  const webhook = parsed.value;
  const { callback, sig, contact } = webhook;
  let suggestion: { text: string; nonce: string } | null = null;
  if (callback) {
    // A confirmation's Yes/No commits through Redis: nothing can be done with it now (as on a warm isolate).
    if (callback.kind === 'confirm') return storageUnavailable(c);
    const claim = {
      kind: 'suggest' as const,
      tenantId,
      contactId: contact.id,
      text: callback.text,
      nonce: callback.nonce,
    };
    if (!sig || !(await verifyCallback(sessionSecrets(c.get('services').env), claim, sig)))
      return jsonError(c, 401, 'callback signature is missing or does not match');
    suggestion = claim;
  } else if (provided === undefined) return missing();
  const cc = contactChannel(webhook);
  const words = runtimeWords({ locale: 'en' }, contactLanguage(webhook));
  const message = await manyChatMessageOf(webhook, suggestion, cc);
  if (message.kind === 'no-text') {
    c.header('x-no-text', '1');
    return c.json(toDynamicBlock({ text: words.say('noText') }, [], cc.channel));
  }
  const inbound = inboundOf(tenantId, webhook, message.text, message.messageKey, cc, message.attachments);
  if (provided === undefined) return keepThroughOutage(c, { inbound }, words.say('holdingReply'));
  if (!isolateOutageKeeps.take(tenantId, Date.now())) {
    console.warn(
      `ManyChat webhook: Redis down, tenant "${tenantId}" not cached, and its unauthenticated keeps are spent; answered 503`,
    );
    return storageUnavailable(c);
  }
  const { hashKey } = await c.get('services').secretKeys();
  c.header('x-tenant-unverified', '1');
  return keepThroughOutage(
    c,
    { inbound, unverified: { secretHmac: await keyedHash(provided, hashKey) } },
    words.say('holdingReply'),
  );
}

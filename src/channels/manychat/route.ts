import { Hono } from 'hono';
import type { InboundMessage } from '../../../core/inbound-message.js';
import type { OutgoingReply } from '../../../core/turn-record.js';
import { answerConfirmation } from '../../approvals/answer-confirmation.js';
import { verifyCallback, type CallbackClaim } from '../../approvals/callback-signature.js';
import { signedQuickReplies } from './signed-quick-replies.js';
import type { AppContext, Services } from '../../http/app-context.js';
import { jsonError, parseJsonText, readBodyLimited } from '../../http/errors.js';
import { secretsEqual } from '../../../core/security/constant-time.js';
import { assertSafeId } from '../../../core/storage/keys.js';
import type { RedisSession } from '../../../core/storage/redis-session.js';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import { loadTenant } from '../../tenants/tenant-store.js';
import { sha256Hex } from '../../../core/security/digest.js';
import { handleInbound, newTurnId } from '../../turn/handle-inbound.js';
import { toDynamicBlock } from './dynamic-block.js';
import { parseManyChatWebhook, type ManyChatWebhook } from './inbound-schema.js';
import { manyChatMessageKey } from './message-key.js';
import { checkRateLimit } from '../../../guardrails/rate-limit.js';

export const MANYCHAT_BODY_LIMIT = 64 * 1024;
export const WEBHOOK_SECRET_HEADER = 'x-staged-agent-secret';

/**
 * `POST /v1/manychat/:tenant` — ManyChat External Request / Dynamic Block. Authenticated by the
 * tenant's secret header, or (button presses) by the HMAC on a callback payload we issued.
 */
export function manyChatRoutes() {
  const app = new Hono<AppContext>();
  app.post('/:tenant', async (c) => {
    const startedAt = performance.now();
    const tenantId = c.req.param('tenant');
    try {
      assertSafeId('tenant id', tenantId);
    } catch {
      return jsonError(c, 404, `unknown tenant "${tenantId.slice(0, 60)}"`);
    }
    const body = await readBodyLimited(c, MANYCHAT_BODY_LIMIT);
    if (!body.ok) return jsonError(c, body.status, body.error);

    const services = c.get('services');
    const session = services.redis();
    const tenant = await loadTenant(session, tenantId);
    if (!tenant.found) return jsonError(c, 404, `unknown tenant "${tenantId}"`);
    if ('broken' in tenant) return jsonError(c, 503, `tenant "${tenantId}" has an invalid stored configuration`, tenant.broken);

    const provided = c.req.header(WEBHOOK_SECRET_HEADER);
    if (provided !== undefined && !(await secretsEqual(await sha256Hex(provided), tenant.secrets.webhookSecretSha256))) {
      return jsonError(c, 401, `wrong ${WEBHOOK_SECRET_HEADER} for tenant "${tenantId}"`);
    }
    const json = parseJsonText(body.text);
    if (!json.ok) return provided === undefined ? jsonError(c, 401, `missing ${WEBHOOK_SECRET_HEADER} header`) : jsonError(c, 400, json.error);
    const webhook = parseManyChatWebhook(json.value);
    if (!webhook.ok) return provided === undefined ? jsonError(c, 401, `missing ${WEBHOOK_SECRET_HEADER} header`) : jsonError(c, 400, 'invalid ManyChat webhook body', webhook.problems);

    const { callback, sig, contact } = webhook.value;
    const secret = services.env.SESSION_SECRET;
    let text: string;
    let messageKey: string;
    if (callback) {
      // A button press: only the signature we issued authorises it; the header alone does not.
      const claim: CallbackClaim =
        callback.kind === 'confirm'
          ? { kind: 'confirm', tenantId, contactId: contact.id, pendingId: callback.pendingId, answer: callback.answer, nonce: callback.nonce }
          : { kind: 'suggest', tenantId, contactId: contact.id, text: callback.text, nonce: callback.nonce };
      if (!sig || !(await verifyCallback(secret, claim, sig))) return jsonError(c, 401, 'callback signature is missing or does not match');
      if (claim.kind === 'confirm') {
        const answer = await answerConfirmation({ session, publisher: services.publisher(), pinSecret: secret, now: new Date() }, claim);
        c.header('x-confirmation-outcome', answer.outcome);
        return c.json(toDynamicBlock({ text: answer.text }));
      }
      // A suggestion: its caption is the contact's next message; the button's nonce makes every
      // press of it (and ManyChat's retries) one delivery.
      text = claim.text;
      messageKey = `qr:${claim.nonce}`;
    } else {
      if (provided === undefined) return jsonError(c, 401, `missing ${WEBHOOK_SECRET_HEADER} header`);
      text = webhook.value.text ?? contact.last_input_text ?? '';
      if (!text.trim()) return jsonError(c, 400, 'no message text: send "text" or the contact\'s last_input_text');
      messageKey = await manyChatMessageKey(webhook.value, text, new Date());
    }
    // Before the claim and the model: a limited message costs one Redis round trip and nothing else.
    // Duplicates of a delivery (ManyChat retries) join the first turn and are not counted again.
    const limited = await checkRateLimit(session, tenantId, contact.id, tenant.config.guardrails.rateLimit, { deliveryKey: messageKey });
    if (!limited.ok) {
      c.header('x-rate-limited', limited.scope);
      return c.json(toDynamicBlock({ text: limited.reply }));
    }
    const { reply, turnId, duplicateOf, deferred } = await runMessageTurn(services, session, tenant.config, webhook.value, text, messageKey, startedAt, waitUntilOf(c));
    c.header('x-turn-id', turnId);
    if (duplicateOf) c.header('x-duplicate-of', duplicateOf);
    if (deferred) c.header('x-turn-deferred', '1');
    return c.json(toDynamicBlock(reply, await signedQuickReplies(reply, callbackUrl(c.req.url), secret, tenantId, contact.id)));
  });
  return app;
}

/** Buttons post back to this webhook, without the query string. */
function callbackUrl(requestUrl: string): string {
  const url = new URL(requestUrl);
  url.search = '';
  return url.toString();
}

/** ExecutionContext.waitUntil where the runtime gives one (workerd); elsewhere the promise just runs. */
export function waitUntilOf(c: { executionCtx: { waitUntil(p: Promise<unknown>): void } }): (p: Promise<unknown>) => void {
  try {
    const ctx = c.executionCtx;
    return (p) => ctx.waitUntil(p);
  } catch {
    return () => {};
  }
}

async function runMessageTurn(services: Services, session: RedisSession, config: TenantConfig, webhook: ManyChatWebhook, text: string, messageKey: string, startedAt: number, waitUntil: (p: Promise<unknown>) => void) {
  const receivedAt = new Date();
  const contact = webhook.contact;
  const name = contact.name ?? ([contact.first_name, contact.last_name].filter(Boolean).join(' ') || undefined);
  const inbound: InboundMessage = {
    tenantId: config.tenantId,
    channel: 'manychat',
    contactId: contact.id,
    messageKey,
    text,
    contact: { ...(name ? { name } : {}), fields: contact.custom_fields ?? {}, ...(contact.last_interaction ? { lastInteraction: contact.last_interaction } : {}) },
    receivedAt: receivedAt.toISOString(),
  };
  const model = services.model(config);
  const outcome = await handleInbound(
    { session, model: model.model, modelId: model.modelId, guardrails: services.guardrails, publisher: services.publisher(), pinSecret: services.env.SESSION_SECRET, turnJobs: services.turnJobs(), waitUntil, background: waitUntil, callbackUrl: `${services.env.PUBLIC_URL.replace(/\/$/, '')}/v1/manychat/${config.tenantId}` },
    inbound,
    config,
    startedAt,
    newTurnId,
  );
  if (outcome.kind === 'turn') return { reply: outcome.record.reply, turnId: outcome.record.turnId, duplicateOf: null, deferred: false };
  if (outcome.kind === 'deferred') return { reply: outcome.reply, turnId: outcome.turnId, duplicateOf: null, deferred: true };
  return { reply: outcome.reply ?? { text: '', quickReplies: [] }, turnId: outcome.turnId, duplicateOf: outcome.turnId, deferred: false };
}

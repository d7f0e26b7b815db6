import { Hono } from 'hono';
import type { InboundMessage } from '../../domain/inbound-message.js';
import { jsonError, parseJsonText, readBodyLimited } from '../../http/errors.js';
import { secretsEqual } from '../../security/constant-time.js';
import { assertSafeId } from '../../storage/keys.js';
import { loadTenant, sha256Hex } from '../../tenants/tenant-store.js';
import { handleInbound, newTurnId } from '../../turn/handle-inbound.js';
import type { AppContext } from '../../http/app-context.js';
import { parseManyChatWebhook } from './inbound-schema.js';
import { manyChatMessageKey } from './message-key.js';
import { toDynamicBlock } from './dynamic-block.js';

export const MANYCHAT_BODY_LIMIT = 64 * 1024;
export const WEBHOOK_SECRET_HEADER = 'x-staged-agent-secret';

/** `POST /v1/manychat/:tenant` — ManyChat External Request / Dynamic Block. */
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

    const provided = c.req.header(WEBHOOK_SECRET_HEADER) ?? '';
    if (!provided) return jsonError(c, 401, `missing ${WEBHOOK_SECRET_HEADER} header`);
    if (!(await secretsEqual(await sha256Hex(provided), tenant.secrets.webhookSecretSha256))) return jsonError(c, 401, `wrong ${WEBHOOK_SECRET_HEADER} for tenant "${tenantId}"`);

    const json = parseJsonText(body.text);
    if (!json.ok) return jsonError(c, 400, json.error);
    const webhook = parseManyChatWebhook(json.value);
    if (!webhook.ok) return jsonError(c, 400, 'invalid ManyChat webhook body', webhook.problems);
    const text = webhook.value.text ?? webhook.value.contact.last_input_text ?? '';
    if (!text.trim() && !webhook.value.callback) return jsonError(c, 400, 'no message text: send "text" or the contact\'s last_input_text');

    const receivedAt = new Date();
    const contact = webhook.value.contact;
    const name = contact.name ?? ([contact.first_name, contact.last_name].filter(Boolean).join(' ') || undefined);
    const inbound: InboundMessage = {
      tenantId,
      channel: 'manychat',
      contactId: contact.id,
      messageKey: await manyChatMessageKey(webhook.value, text, receivedAt),
      text,
      contact: { ...(name ? { name } : {}), fields: contact.custom_fields ?? {}, ...(contact.last_interaction ? { lastInteraction: contact.last_interaction } : {}) },
      receivedAt: receivedAt.toISOString(),
    };
    const model = services.model(tenant.config);
    const outcome = await handleInbound(
      { session, model: model.model, modelId: model.modelId, guardrails: services.guardrails, publisher: services.publisher() },
      inbound,
      tenant.config,
      startedAt,
      newTurnId,
    );
    const reply = outcome.kind === 'turn' ? outcome.record.reply : (outcome.reply ?? { text: '', quickReplies: [] });
    const turnId = outcome.kind === 'turn' ? outcome.record.turnId : outcome.turnId;
    c.header('x-turn-id', turnId);
    if (outcome.kind === 'duplicate') c.header('x-duplicate-of', outcome.turnId);
    return c.json(toDynamicBlock(reply, new URL(c.req.url).toString(), (cb) => ({ callback: cb })));
  });
  return app;
}

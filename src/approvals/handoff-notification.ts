import type { InboundMessage } from '../../core/inbound-message.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { notificationTarget } from './notification-target.js';
import { slackEscape, slackLink } from './slack-text.js';

/**
 * `handoff.requested`: an escalation told to the tenant's notification channel (config
 * `notifications.approvals`: a signed Standard Webhooks POST, or a Slack incoming webhook), so a
 * person learns that a contact waits — the handover alone only moves the thread into an inbox
 * nobody may be watching. One `notify_webhook` action in the turn's own outbox entry (committed
 * with the turn, delivered and retried by the outbox; its `webhook-id` the same on every retry).
 * The body names the contact (id, channel), the reason and a link to the turn in the dashboard;
 * never a secret, never the contact's words (the turn page shows them to a logged-in teammate).
 */
export function handoffNotification(
  config: Pick<TenantConfig, 'tenantId' | 'notifications' | 'handoff'>,
  turn: {
    turnId: string;
    inbound: Pick<InboundMessage, 'channel' | 'contactId'>;
    reason: string;
    handoffUntil: string | null;
  },
  publicUrl: string,
): StagedAction[] {
  const target = notificationTarget(config);
  if (!target) return [];
  const base = publicUrl.replace(/\/$/, '');
  const event = {
    type: 'handoff.requested',
    tenantId: config.tenantId,
    turnId: turn.turnId,
    channel: turn.inbound.channel,
    contactId: turn.inbound.contactId,
    reason: turn.reason.slice(0, 500),
    silencedUntil: turn.handoffUntil,
    turn: `${base}/dashboard/turns/${turn.turnId}`,
    // POST with the tenant's admin secret (Authorization: Bearer) to give the contact back to the bot.
    release: `${base}/v1/tenants/${config.tenantId}/contacts/${encodeURIComponent(turn.inbound.contactId)}/release`,
  };
  const body = target.format === 'slack' ? { text: slackText(event), event } : event;
  const id = `${turn.turnId}.handoff-notify`;
  return [
    {
      id,
      tool: 'system:handoff-notification',
      kind: 'notify_webhook',
      args: { ...target.args, body: JSON.stringify(body), webhookId: id, event: 'handoff.requested' },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `notify ${target.shownAs} that contact ${turn.inbound.contactId} waits for a person`,
    },
  ];
}

/** Slack's message text (slack-text.ts escapes every part): the link to the turn is the one formatted part. */
function slackText(event: {
  tenantId: string;
  channel: string;
  contactId: string;
  reason: string;
  turn: string;
}): string {
  const esc = slackEscape;
  return `Handoff requested (${esc(event.tenantId)}): ${esc(event.channel)} contact ${esc(event.contactId)} waits for a person — ${esc(event.reason)}. ${slackLink(event.turn, 'Open the turn')}`;
}

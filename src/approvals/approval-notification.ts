import type { PinnedTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { notificationTarget } from './notification-target.js';
import { slackEscape, slackLink } from './slack-text.js';

/**
 * A new pending approval, told to the tenant's endpoint (config `notifications.approvals`): one
 * `notify_webhook` action per approval, committed in the same write as the turn that created it
 * and performed by the outbox. The body names the action (tool and kind), the contact by id and
 * where to decide it; never a secret, and never the contact's name or words (the card quotes
 * them, so it is not sent: a name like `<!channel>` would ping a Slack channel, a message could
 * forge an "Approve" link). The dashboard's review page shows the card to a logged-in teammate.
 */
export function approvalNotifications(
  config: Pick<TenantConfig, 'tenantId' | 'notifications'>,
  approvals: readonly PinnedTerms[],
  publicUrl: string,
): StagedAction[] {
  const target = notificationTarget(config);
  if (!target) return [];
  const root = publicUrl.replace(/\/$/, '');
  const base = `${root}/v1/tenants/${config.tenantId}/approvals`;
  return approvals.map((approval) => {
    const event = {
      type: 'approval.pending',
      tenantId: config.tenantId,
      approvalId: approval.id,
      turnId: approval.turnId,
      contactId: approval.contactId,
      actions: approval.actions.map((a) => ({ tool: a.tool, kind: a.kind })),
      expiresAt: approval.expiresAt,
      review: `${root}/dashboard/approvals/${approval.id}/confirm`,
      // POST with the tenant's admin secret (Authorization: Bearer).
      approve: `${base}/${approval.id}/approve`,
      reject: `${base}/${approval.id}/reject`,
    };
    const body = target.format === 'slack' ? { text: slackText(event), event } : event;
    const id = `${approval.id}.notify`;
    return {
      id,
      tool: 'system:approval-notification',
      kind: 'notify_webhook',
      args: { ...target.args, body: JSON.stringify(body), webhookId: id, event: 'approval.pending' },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `notify ${target.shownAs} of approval ${approval.id}`,
    } satisfies StagedAction;
  });
}

function slackText(event: {
  tenantId: string;
  contactId: string;
  actions: { tool: string; kind: string }[];
  expiresAt: string;
  review: string;
}): string {
  const what = event.actions.map((a) => `${a.tool} (${a.kind})`).join(', ');
  return `Approval needed (${slackEscape(event.tenantId)}): ${slackEscape(what)} for contact ${slackEscape(event.contactId)}, expires ${slackEscape(event.expiresAt)}. ${slackLink(event.review, 'Review it in the dashboard')}`;
}

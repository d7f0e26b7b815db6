import type { PinnedTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';

/**
 * A new pending approval, told to the tenant's endpoint (config `notifications.approvals`): one
 * `notify_webhook` action per approval, committed in the same write as the turn that created it
 * and performed by the outbox. The body names what waits and how to decide it; never a secret,
 * and of the contact only their id (the card is the tenant's own words about the action).
 */
export function approvalNotifications(
  config: Pick<TenantConfig, 'tenantId' | 'notifications'>,
  approvals: readonly PinnedTerms[],
  publicUrl: string,
): StagedAction[] {
  const target = config.notifications.approvals;
  if (!target) return [];
  const base = `${publicUrl.replace(/\/$/, '')}/v1/tenants/${config.tenantId}/approvals`;
  return approvals.map((approval) => {
    const event = {
      type: 'approval.pending',
      tenantId: config.tenantId,
      approvalId: approval.id,
      turnId: approval.turnId,
      contactId: approval.contactId,
      card: approval.card ?? approval.actions.map((a) => a.summary).join('; '),
      actions: approval.actions.map((a) => ({ tool: a.tool, kind: a.kind, summary: a.summary })),
      expiresAt: approval.expiresAt,
      // POST with the tenant's admin secret (Authorization: Bearer).
      approve: `${base}/${approval.id}/approve`,
      reject: `${base}/${approval.id}/reject`,
    };
    const body =
      target.format === 'slack'
        ? {
            text: `Approval needed (${config.tenantId}): ${event.card} — expires ${event.expiresAt}. Approve: POST ${event.approve}`,
            event,
          }
        : event;
    const id = `${approval.id}.notify`;
    return {
      id,
      tool: 'system:approval-notification',
      kind: 'notify_webhook',
      args: { url: target.url, body: JSON.stringify(body), webhookId: id, event: 'approval.pending' },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `notify ${new URL(target.url).host} of approval ${approval.id}`,
    } satisfies StagedAction;
  });
}

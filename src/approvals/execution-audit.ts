import { actionKind } from '../../core/actions/index.js';
import type { DeliveryResult } from '../../outbox/deliver-entry.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { appendAudit } from '../tenants/audit-log.js';
import type { LoadedPinned } from './pinned-store.js';

/** The audit's actor for what the delivery did on an approver's decision. */
export const DELIVERY_ACTOR = 'system:delivery';

/**
 * An approved call that was executed leaves an audit row: the approval's id, the call (tool and
 * kind, never its arguments: they may hold the contact's data), its result as the ledger recorded
 * it (done, dead, unknown, with why) and how to undo it — the tool the tenant declared as its
 * `undo`, else the action kind that reverses it, else none. Written once per call: only for
 * actions this delivery brought to their final state.
 */
export async function auditApprovedExecution(
  session: RedisSession,
  config: Pick<TenantConfig, 'tenantId' | 'manifest'>,
  row: LoadedPinned | null,
  settled: DeliveryResult['settled'],
): Promise<number> {
  if (row?.terms.kind !== 'approval' || !settled?.length) return 0;
  let written = 0;
  for (const s of settled) {
    const action = row.terms.actions.find((a) => a.id === s.id);
    if (!action) continue;
    const declared = config.manifest[action.tool]?.undo;
    const reverse = actionKind(action.kind).undoKind;
    const undo = declared ? `undo with ${declared}` : reverse ? `undo with a ${reverse} action` : 'no undo';
    const result = s.state === 'done' ? 'done' : `${s.state}${s.detail ? ` (${s.detail.slice(0, 200)})` : ''}`;
    await appendAudit(session, config.tenantId, {
      actor: DELIVERY_ACTOR,
      action: 'approval.executed',
      detail: `approval ${row.terms.id}: ${action.tool} (${action.kind}) ${result}; ${undo}`,
    });
    written++;
  }
  return written;
}

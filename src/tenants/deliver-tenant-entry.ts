import { deliverOutboxEntry, type DeliveryResult } from '../../outbox/deliver-entry.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { TenantSecrets } from '../../core/tenant/tenant-secrets.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { Services } from '../http/app-context.js';
import { checkSignedRow, type SignedRowCheck } from '../approvals/signed-row-check.js';
import { auditApprovedExecution } from '../approvals/execution-audit.js';
import { alertOfDelivery } from '../approvals/failure-alerts.js';
import { channelApisFor } from './channel-apis.js';
import { sessionSecrets } from '../env.js';

/**
 * One delivery of a tenant's outbox entry, as every path runs it (QStash's delivery, a re-drive
 * from the API or the dashboard): each approved or confirmed action is checked against the
 * tenant's configuration now and against the signed row it came from; an executed approval
 * leaves an audit row; what failed is alerted.
 */
export async function deliverTenantEntry(
  services: Services,
  session: RedisSession,
  tenant: { config: TenantConfig; secrets: TenantSecrets },
  turnId: string,
): Promise<DeliveryResult> {
  const { config } = tenant;
  // The pending row the entry executes, as the delivery re-verified it (for the audit).
  let executed: SignedRowCheck['row'] = null;
  const result = await deliverOutboxEntry({
    session,
    tenantId: config.tenantId,
    turnId,
    apis: channelApisFor(services, tenant.secrets, config),
    config,
    signedRow: async (entry) => {
      const check = await checkSignedRow(session, sessionSecrets(services.env), entry);
      executed = check.row;
      return check.refuse;
    },
  });
  // The ledger already holds the truth: an audit row that fails to write never fails the delivery.
  await auditApprovedExecution(session, config, executed, result.settled).catch((err: unknown) =>
    console.warn(
      `outbox ${config.tenantId}/${turnId}: the execution audit was not written (${err instanceof Error ? err.message : 'error'})`,
    ),
  );
  await alertOfDelivery({
    session,
    publisher: services.publisher(),
    config,
    result,
    publicUrl: services.env.PUBLIC_URL,
  });
  return result;
}

import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import type { RedisSession } from '../../../core/storage/redis-session.js';
import { listApprovals, type ApprovalView } from '../../approvals/decide-approval.js';
import { loadTurnRecords } from './turns.js';

export interface ApprovalCard extends ApprovalView {
  /** What the contact wrote in the turn that asked for it. */
  contactWords: string;
  /** The tool that reverses it, if the manifest names one. */
  undo: string | null;
  /** Pending but past its hour: shown as expired (the cron moves it and tells the contact). */
  shownStatus: 'pending' | 'expired' | string;
  msLeft: number;
}

/** The tenant's approval queue as cards: every row read under the session's tenant. */
export async function approvalCards(redis: RedisSession, tenantId: string, config: TenantConfig, now = new Date()): Promise<ApprovalCard[]> {
  const views = await listApprovals(redis, tenantId);
  const turns = await loadTurnRecords(redis, tenantId, [...new Set(views.map((v) => v.turnId))]);
  const words = new Map(turns.map((t) => [t.turnId, t.inbound.text ?? '']));
  return views.map((v) => {
    const msLeft = Date.parse(v.expiresAt) - now.getTime();
    return {
      ...v,
      contactWords: words.get(v.turnId) ?? '',
      undo: config.manifest[v.tool]?.undo ?? null,
      shownStatus: v.status === 'pending' && msLeft <= 0 ? 'expired' : v.status,
      msLeft,
    };
  });
}

export const APPROVAL_ID = /^ap_[a-f0-9]{32}$/;

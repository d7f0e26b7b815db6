import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import type { RedisSession } from '../../../core/storage/redis-session.js';
import { listApprovals, type ApprovalView } from '../../approvals/decide-approval.js';
import { correctionsOf, loadPinned } from '../../approvals/pinned-store.js';
import { loadTurnRecords, newestTurnIds } from './turns.js';

/** How many of the newest turns are read for approvals already decided or expired (no longer queued). */
export const RECENT_TURNS_FOR_DECIDED = 100;

export interface ApprovalCard extends ApprovalView {
  /** What the contact wrote in the turn that asked for it. */
  contactWords: string;
  /** The tool that reverses it, if the manifest names one. */
  undo: string | null;
  /** Pending but past its hour: shown as expired (the cron moves it and tells the contact). */
  shownStatus: 'pending' | 'expired' | string;
  msLeft: number;
  /** A correction's author (`dashboard:<user>`, `admin`); absent for what the turn pinned. */
  authoredBy?: string;
  /** The approval this one corrects. */
  corrects?: string;
  /** The approval that corrected this one (this one was rejected for it). */
  correctedBy?: string;
}

/**
 * The tenant's approval queue as cards, then the approvals of its recent turns that have left the
 * queue (approved, rejected, expired by the cron): every row read under the session's tenant.
 */
export async function approvalCards(
  redis: RedisSession,
  tenantId: string,
  config: TenantConfig,
  now = new Date(),
): Promise<ApprovalCard[]> {
  const queued = await listApprovals(redis, tenantId);
  const { ids } = await newestTurnIds(redis, tenantId, RECENT_TURNS_FOR_DECIDED);
  const recent = await loadTurnRecords(redis, tenantId, ids);
  const queuedIds = new Set(queued.map((v) => v.id));
  const turnApprovalIds = recent.flatMap((t) => t.approvals);
  // A correction is a row no turn names: found through the row it corrected.
  const corrections = await correctionsOf(redis, tenantId, [...new Set([...queuedIds, ...turnApprovalIds])]);
  const decidedIds = [...new Set([...turnApprovalIds, ...corrections.values()])].filter((id) => !queuedIds.has(id));
  const decided: ApprovalView[] = [];
  const authored = new Map<string, { authoredBy?: string; corrects?: string }>();
  const loadedRows = await Promise.all(decidedIds.map((id) => loadPinned(redis, tenantId, id)));
  for (const loaded of loadedRows) {
    if (!loaded || loaded.terms.kind !== 'approval') continue;
    const first = loaded.terms.pinned[0];
    if (loaded.terms.authoredBy)
      authored.set(loaded.terms.id, {
        authoredBy: loaded.terms.authoredBy,
        ...(loaded.terms.corrects ? { corrects: loaded.terms.corrects } : {}),
      });
    decided.push({
      id: loaded.terms.id,
      status: loaded.status,
      card: loaded.terms.card,
      tool: first?.tool ?? '',
      args: first?.args ?? '{}',
      contactId: loaded.terms.contactId,
      turnId: loaded.terms.turnId,
      createdAt: loaded.terms.createdAt,
      expiresAt: loaded.terms.expiresAt,
    });
  }
  const views = [...queued, ...decided];
  const known = new Map(recent.map((t) => [t.turnId, t.inbound.text ?? '']));
  const missing = [...new Set(views.map((v) => v.turnId))].filter((id) => !known.has(id));
  for (const t of await loadTurnRecords(redis, tenantId, missing)) known.set(t.turnId, t.inbound.text ?? '');
  const words = known;
  return views.map((v) => {
    const msLeft = Date.parse(v.expiresAt) - now.getTime();
    return {
      ...v,
      contactWords: words.get(v.turnId) ?? '',
      undo: config.manifest[v.tool]?.undo ?? null,
      shownStatus: v.status === 'pending' && msLeft <= 0 ? 'expired' : v.status,
      msLeft,
      ...authored.get(v.id),
      ...(corrections.has(v.id) ? { correctedBy: corrections.get(v.id)! } : {}),
    };
  });
}

export const APPROVAL_ID = /^ap_[a-f0-9]{32}$/;

import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { replayAllowed, type ReplayAllowance } from './replay-limit.js';
import { summarize, type ReplayReport } from './replay-report.js';
import { replayTurn, type ReplayDeps, type ReplayedTurn } from './replay-turn.js';
import { selectTurns, type TurnFilter } from './select-turns.js';

export type ReplayRun =
  { ok: true; report: ReplayReport } | { ok: false; refused: Exclude<ReplayAllowance, { ok: true }> };

/**
 * A tenant's replay: its recorded turns chosen by `filter` (its own key prefix only), each
 * replayed with the candidate config, then the report. `limited` checks the tenant's replay
 * rate limits first (replay-limit.ts): the dashboard's action does; the operator's CLI, which
 * holds the Redis credentials anyway, does not.
 */
export async function runReplay(
  deps: ReplayDeps & { session: RedisSession; limited: boolean },
  tenantId: string,
  filter: TurnFilter,
  candidate: TenantConfig,
): Promise<ReplayRun> {
  if (candidate.tenantId !== tenantId)
    throw new Error(`the candidate config is of tenant ${candidate.tenantId}, not ${tenantId}`);
  const records = await selectTurns(deps.session, tenantId, filter);
  if (deps.limited) {
    const allowed = await replayAllowed(deps.session, tenantId, records.length);
    if (!allowed.ok) return { ok: false, refused: allowed };
  }
  const turns: ReplayedTurn[] = [];
  // One turn at a time: a replay is background work, it should not crowd the machine.
  for (const record of records) turns.push(await replayTurn(deps, record, candidate));
  return { ok: true, report: summarize(tenantId, turns) };
}

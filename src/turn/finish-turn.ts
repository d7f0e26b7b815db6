import { loadRerunInputs } from '../../core/storage/contact-state.js';
import type { TurnRecord } from '../../core/turn-record.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { FinishTurnJob } from '../../core/finish-turn-job.js';
import { runTurn } from './run-turn.js';
import type { TurnDeps } from './turn-context.js';
import { refusalOf, turnContext } from './turn-engine.js';

export type FinishOutcome =
  | { kind: 'already-done'; turnId: string }
  | { kind: 'finished'; record: TurnRecord }
  | { kind: 'refused'; reason: 'suspended' };

/**
 * The delayed "finish turn" job: a no-op when the turn was committed, else the turn runs again
 * from the start as a deferred turn (its commit is claimed by turn id, so a background run that
 * is somehow still alive and this one cannot both commit).
 */
export async function finishTurn(deps: TurnDeps, config: TenantConfig, job: FinishTurnJob): Promise<FinishOutcome> {
  const refused = refusalOf('deferred-finish', deps.tenantStatus ?? 'active');
  if (refused) return { kind: 'refused', reason: refused };
  const { inbound, turnId } = job;
  const inputs = await loadRerunInputs(deps.session, config.tenantId, turnId, inbound.contactId);
  if (inputs.done) return { kind: 'already-done', turnId };
  const record = await runTurn(
    deps,
    turnContext('deferred-finish', {
      turnId,
      inbound,
      config,
      history: inputs.history,
      roundTripsBeforeModel: deps.session.roundTrips,
      inHandoffUntil: inputs.inHandoffUntil,
    }),
  );
  return { kind: 'finished', record };
}

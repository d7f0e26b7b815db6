import { tenantWords } from '../../core/tenant/tenant-words.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { OutgoingReply, TurnRecord } from '../../core/turn-record.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { claimDelivery } from './claim-delivery.js';
import type { ClaimResult } from '../../core/storage/claims.js';
import { awaitTurnRecord } from '../../core/storage/turn-records.js';
import type { TurnJobPublisher } from '../../outbox/finish-turn-publisher.js';
import { runTurn } from './run-turn.js';
import type { TurnDeps } from './turn-context.js';
import { finishDueAt, finishJobDelaySeconds, refusalOf, turnContext } from './turn-engine.js';
import { responseDeadlineAt } from './response-deadline.js';

export { FINISH_JOB_GRACE_SECONDS } from './turn-engine.js';
export { RESPONSE_MARGIN_MS } from './response-deadline.js';

export interface InboundDeps extends TurnDeps {
  turnJobs: TurnJobPublisher;
  /** Keeps the isolate alive for a deferred turn (ExecutionContext.waitUntil). */
  waitUntil: (promise: Promise<unknown>) => void;
  /** The webhook's turn (default) or the dashboard's Try it "perform": the same turn, committed. */
  mode?: 'live' | 'try-perform';
}

export type InboundOutcome =
  | { kind: 'turn'; record: TurnRecord }
  /** Not finished at the deadline: answered now, finished in the background, replied through the outbox. */
  | { kind: 'deferred'; turnId: string; reply: OutgoingReply }
  /** A duplicate delivery: the first turn's reply, or null if it is not finished by the deadline. */
  | { kind: 'duplicate'; turnId: string; reply: OutgoingReply | null }
  /** Refused by the engine before anything was claimed (a suspended tenant): no turn. */
  | { kind: 'refused'; reason: 'suspended' };

function sleepUntil(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));
}

/** Claim the delivery, then run the turn (deferring it at the deadline) or attach to the one already running. */
export async function handleInbound(
  deps: InboundDeps,
  inbound: InboundMessage,
  config: TenantConfig,
  startedAt: number,
  newTurnId: () => string,
  claimed?: { turnId: string; claim: ClaimResult },
): Promise<InboundOutcome> {
  const mode = deps.mode ?? 'live';
  const refused = refusalOf(mode, deps.tenantStatus ?? 'active');
  if (refused) return { kind: 'refused', reason: refused };
  const turnId = claimed?.turnId ?? newTurnId();
  const responseDeadline = responseDeadlineAt(config, startedAt);
  // Past the due time the sweeper finishes the turn if nothing else has (the isolate died and
  // the finish-turn job was lost). Claimed already (in the same round trip as the rate limit:
  // start-turn.ts), or claimed here.
  const claim =
    claimed?.claim ??
    (await claimDelivery(deps.session, config.tenantId, inbound.messageKey, inbound.contactId, turnId, {
      job: { turnId, inbound },
      dueAt: finishDueAt(config),
      retentionDays: config.retentionDays,
    }));
  if (!claim.claimed) {
    if (!claim.existingTurnId) return { kind: 'duplicate', turnId: '', reply: null };
    const record = await awaitTurnRecord(
      deps.session,
      config.tenantId,
      claim.existingTurnId,
      Date.now() + (responseDeadline - performance.now()),
      (raw) => (raw && typeof raw === 'object' && 'reply' in raw ? (raw as TurnRecord) : null),
    );
    // A deferred turn's reply goes out through the outbox; repeating it here would send it twice.
    return { kind: 'duplicate', turnId: claim.existingTurnId, reply: record && !record.deferred ? record.reply : null };
  }
  const ctx = turnContext(mode, {
    turnId,
    inbound,
    config,
    history: claim.history,
    startedAt,
    roundTripsBeforeModel: deps.session.roundTrips,
    inHandoffUntil: claim.inHandoffUntil,
  });
  const { deferral } = ctx;
  const turn = runTurn(deps, ctx);
  const first = await Promise.race([
    turn.then((record) => ({ record })),
    sleepUntil(responseDeadline).then(() => null),
  ]);
  if (first) return { kind: 'turn', record: first.record };
  // A commit already under way is quick and decides the reply; wait for it.
  if (deferral.committing) return { kind: 'turn', record: await turn };
  deferral.deferred = true;
  deps.waitUntil(
    turn.catch((err: unknown) =>
      console.error(`deferred turn ${turnId} failed: ${err instanceof Error ? err.message : String(err)}`),
    ),
  );
  // Only a deferred turn buys a finish-turn job: its background run may outlive the isolate's
  // allowance, and the job reruns it soon after its deadline. Any other turn that dies before its
  // commit is finished by the cron's sweep of open claims (listed with the claim), so a turn
  // answered in time costs no QStash message unless it commits actions.
  const delaySeconds = finishJobDelaySeconds(config, startedAt);
  deps.waitUntil(
    deps.turnJobs
      .publishFinishTurn({ turnId, inbound }, delaySeconds)
      .catch((err: unknown) =>
        console.error(
          `finish-turn job for ${turnId} could not be published: ${err instanceof Error ? err.message : String(err)}`,
        ),
      ),
  );
  return {
    kind: 'deferred',
    turnId,
    reply: { text: tenantWords(config, inbound.contact.language).say('holdingReply'), quickReplies: [] },
  };
}

export function newTurnId(): string {
  return `turn_${crypto.randomUUID().replace(/-/g, '')}`;
}

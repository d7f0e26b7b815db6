import type { InboundMessage } from '../../../core/inbound-message.js';
import type { RedisSession } from '../../../core/storage/redis-session.js';
import type { StagedAction } from '../../../core/staged-action.js';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import type { ModelStepRecord } from '../../../core/turn-record.js';
import type { Verdict } from '../../../core/verdict.js';
import { TurnStaging } from '../../../tools/staging.js';
import type { Services } from '../../http/app-context.js';
import { decideTurn } from '../../turn/decide-turn.js';
import { handleInbound, newTurnId } from '../../turn/handle-inbound.js';
import { judgeTurn } from '../../turn/judge-turn.js';
import { turnDeps } from '../../turn/turn-deps.js';
import { runTurnLoop } from '../../turn/turn-loop.js';

export interface TrialResult {
  turnId: string;
  /** `dry`: loop, guardrails and decision ran; nothing was committed or performed. `performed`: the whole turn, committed. */
  mode: 'dry' | 'performed' | 'deferred';
  decision: string;
  reason: string;
  reply: string;
  staged: StagedAction[];
  verdicts: Verdict[];
  steps: ModelStepRecord[];
  /** What the decision would hand to the outbox (dry) — or did. */
  wouldCommit: StagedAction[];
  wouldPin: StagedAction[];
  notes: string[];
}

function testInbound(config: TenantConfig, contactId: string, text: string): InboundMessage {
  const now = new Date().toISOString();
  return { tenantId: config.tenantId, channel: 'manychat', contactId, messageKey: `dashboard-try-${crypto.randomUUID()}`, text, contact: { name: 'Test contact', fields: {}, lastInteraction: now }, receivedAt: now };
}

/**
 * "Try it": a message from a test contact through the real turn — the same prompt, model, tools
 * and guardrails and the same decision. Dry (the default): the stages run up to the decision and
 * stop; no claim, no record, no outbox entry, so nothing can be performed. `perform`: the whole
 * turn, exactly as a webhook runs it, committed and delivered for the test contact.
 */
export async function runTrial(services: Services, redis: RedisSession, config: TenantConfig, input: { contactId: string; text: string; perform: boolean }, waitUntil: (p: Promise<unknown>) => void): Promise<TrialResult> {
  const inbound = testInbound(config, input.contactId, input.text);
  const startedAt = performance.now();
  if (input.perform) {
    const deps = { ...turnDeps(services, redis, config, waitUntil), turnJobs: services.turnJobs(), waitUntil };
    const outcome = await handleInbound(deps, inbound, config, startedAt, newTurnId);
    if (outcome.kind !== 'turn') return { turnId: outcome.turnId, mode: 'deferred', decision: 'deferred', reason: 'the turn ran past the deadline and finishes in the background', reply: outcome.reply?.text ?? '', staged: [], verdicts: [], steps: [], wouldCommit: [], wouldPin: [], notes: [] };
    const r = outcome.record;
    return { turnId: r.turnId, mode: 'performed', decision: r.decision, reason: r.decisionReason, reply: r.reply.text, staged: r.staged, verdicts: r.verdicts, steps: r.steps, wouldCommit: r.committed, wouldPin: r.staged.filter((a) => a.gate !== 'none'), notes: r.notes };
  }
  const deps = turnDeps(services, redis, config);
  const turnId = newTurnId();
  const ctx = { turnId, inbound, config, history: [], deadlineAt: startedAt + config.asyncDeadlineMs, startedAt, roundTripsBeforeModel: 0, inHandoffUntil: null, deferral: { deferred: false, committing: false } };
  const staging = new TurnStaging(turnId);
  const notes: string[] = [];
  const { loop, instructions } = await runTurnLoop(deps, ctx, staging, notes);
  const { judged, staged } = await judgeTurn(deps.guardrails, { inbound, config, history: [], instructions, loop, staged: staging.actions, inHandoffUntil: null });
  const decision = decideTurn({ inHandoffUntil: null, loop, judged, deferred: false, staged, config, turnId, now: new Date() });
  return { turnId, mode: 'dry', decision: decision.decision, reason: decision.reason, reply: decision.reply.text, staged, verdicts: judged?.verdicts ?? [], steps: loop.steps, wouldCommit: decision.commit, wouldPin: decision.pin, notes };
}

import type { InboundMessage } from '../../../core/inbound-message.js';
import type { RedisSession } from '../../../core/storage/redis-session.js';
import type { StagedAction } from '../../../core/staged-action.js';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import type { ModelStepRecord } from '../../../core/turn-record.js';
import type { Verdict } from '../../../core/verdict.js';
import type { Services } from '../../http/app-context.js';
import { handleInbound, newTurnId } from '../../turn/handle-inbound.js';
import { turnDeps } from '../../turn/turn-deps.js';
import { evaluateTurn, turnContext, type TenantStatus } from '../../turn/turn-engine.js';

export interface TrialResult {
  turnId: string;
  /** `dry`: loop, guardrails and decision ran; nothing was committed or performed. `performed`: the whole turn, committed. `refused`: nothing ran (a suspended tenant). */
  mode: 'dry' | 'performed' | 'deferred' | 'refused';
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
  return {
    tenantId: config.tenantId,
    channel: 'manychat',
    contactId,
    messageKey: `dashboard-try-${crypto.randomUUID()}`,
    text,
    contact: { name: 'Test contact', fields: {}, lastInteraction: now },
    receivedAt: now,
  };
}

/**
 * "Try it": a message from a test contact through the real turn — the same prompt, model, tools
 * and guardrails and the same decision. Dry (the default, mode `try-dry`): the engine's stages up
 * to the decision, then stop; no claim, no record, no outbox entry, so nothing can be performed.
 * `perform` (mode `try-perform`): the whole turn, exactly as a webhook runs it, committed and
 * delivered for the test contact — and, like every committing mode, refused by the engine for a
 * suspended tenant.
 */
export async function runTrial(
  services: Services,
  redis: RedisSession,
  tenant: { config: TenantConfig; status: TenantStatus },
  input: { contactId: string; text: string; perform: boolean },
  waitUntil: (p: Promise<unknown>) => void,
): Promise<TrialResult> {
  const { config, status } = tenant;
  const inbound = testInbound(config, input.contactId, input.text);
  const startedAt = performance.now();
  const nothing = { staged: [], verdicts: [], steps: [], wouldCommit: [], wouldPin: [], notes: [] };
  if (input.perform) {
    const deps = {
      ...turnDeps(services, redis, config, status, waitUntil),
      turnJobs: services.turnJobs(),
      waitUntil,
      mode: 'try-perform' as const,
    };
    const outcome = await handleInbound(deps, inbound, config, startedAt, newTurnId);
    if (outcome.kind === 'refused')
      return {
        turnId: '',
        mode: 'refused',
        decision: 'refused',
        reason: 'the tenant is suspended',
        reply: '',
        ...nothing,
      };
    if (outcome.kind !== 'turn')
      return {
        turnId: outcome.turnId,
        mode: 'deferred',
        decision: 'deferred',
        reason: 'the turn ran past the deadline and finishes in the background',
        reply: outcome.reply?.text ?? '',
        ...nothing,
      };
    const r = outcome.record;
    return {
      turnId: r.turnId,
      mode: 'performed',
      decision: r.decision,
      reason: r.decisionReason,
      reply: r.reply.text,
      staged: r.staged,
      verdicts: r.verdicts,
      steps: r.steps,
      wouldCommit: r.committed,
      wouldPin: r.staged.filter((a) => a.gate !== 'none'),
      notes: r.notes,
    };
  }
  const deps = turnDeps(services, redis, config, status);
  const ctx = turnContext('try-dry', {
    turnId: newTurnId(),
    inbound,
    config,
    history: [],
    startedAt,
    inHandoffUntil: null,
  });
  const { loop, judged, decision, staged, notes } = await evaluateTurn(deps, ctx);
  return {
    turnId: ctx.turnId,
    mode: 'dry',
    decision: decision.decision,
    reason: decision.reason,
    reply: decision.reply.text,
    staged,
    verdicts: judged?.verdicts ?? [],
    steps: loop.steps,
    wouldCommit: decision.commit,
    wouldPin: decision.pin,
    notes,
  };
}

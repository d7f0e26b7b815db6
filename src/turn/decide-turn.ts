import type { RuntimeWords } from '../../core/runtime-words.js';
import { actionKind } from '../../core/actions/index.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { OutgoingReply } from '../../core/turn-record.js';
import type { Decision, VerdictOutcome } from '../../core/verdict.js';
import type { LoopOutcome } from './model-loop.js';

export interface DecideInput {
  /** The contact is with a human until then: the model was not called. */
  inHandoffUntil: string | null;
  loop: LoopOutcome;
  /** The guardrails' combined verdict; null when they did not run. */
  judged: { outcome: VerdictOutcome; reason: string } | null;
  /** The webhook has already answered (deadline passed): the reply must go through the outbox. */
  deferred: boolean;
  staged: readonly StagedAction[];
  config: Pick<TenantConfig, 'fallbackReply' | 'handoff'> & {
    messenger?: Pick<TenantConfig['messenger'], 'handoverAppId'>;
  };
  turnId: string;
  now: Date;
  /** The runtime's words for this contact (fallback and handoff replies); absent: the config's own texts. */
  words?: RuntimeWords;
  /** The inbound's channel: the handoff performs only what that channel can (Messenger has no tags). Absent: ManyChat. */
  channel?: InboundMessage['channel'];
}

export interface TurnDecision {
  decision: Decision;
  /** Why, in a sentence (the deciding guardrail, the error, the handoff). */
  reason: string;
  reply: OutgoingReply;
  /** For the outbox, in order: the model's ungated actions on pass, the handoff's on escalate, else none. */
  commit: StagedAction[];
  /** Gated actions that become pending rows (confirmation, approval): pass only. */
  pin: StagedAction[];
  /** Set on an escalation: the model stays silent for this contact until then. */
  handoffUntil: string | null;
  /** `webhook`: in the webhook's answer; `outbox`: sent before the actions (deferred turn); `none`: silence. */
  replyRoute: 'webhook' | 'outbox' | 'none';
  /** Whether the agent's reply joins the conversation history. */
  recordAgentReply: boolean;
}

/**
 * The one place a turn's outcome is decided. In order:
 * 1. a contact with a human gets silence and nothing is performed (no second handoff);
 * 2. a loop error → `error`: the fallback, nothing performed;
 * 3. not judged, or any guardrail escalates → `escalate`;
 * 4. any guardrail vetoes → `veto`: the fallback, nothing the model staged;
 * 5. all pass, but the loop gave no usable reply → `escalate` (fail closed);
 * 6. otherwise `pass`: the model's reply, its ungated actions committed, gated ones pinned.
 * An escalation performs the tenant's handoff (the system's actions, never the model's) and
 * silences the model for `handoff.silenceMinutes`. A deferred turn's reply goes through the outbox.
 */
export function decideTurn(input: DecideInput): TurnDecision {
  const { loop, judged, config } = input;
  if (input.inHandoffUntil) {
    const reason = loop.kind === 'no-reply' ? loop.why : 'contact in handoff';
    return {
      decision: 'escalate',
      reason,
      reply: { text: '', quickReplies: [] },
      commit: [],
      pin: [],
      handoffUntil: null,
      replyRoute: 'none',
      recordAgentReply: false,
    };
  }
  if (loop.kind === 'error') return fallback(input, 'error', loop.why);
  if (!judged) return escalation(input, 'the turn was not judged (fail closed)');
  if (judged.outcome === 'escalate') return escalation(input, judged.reason);
  if (judged.outcome === 'veto') return fallback(input, 'veto', judged.reason);
  if (judged.outcome !== 'pass') return escalation(input, `unknown verdict "${String(judged.outcome)}" (fail closed)`);
  if (loop.kind !== 'reply') return escalation(input, `no usable reply: ${loop.why}`);
  const reply: OutgoingReply = {
    text: loop.reply.text,
    quickReplies: (loop.reply.quickReplies ?? []).map((caption) => ({ caption })),
  };
  return {
    decision: 'pass',
    reason: judged.reason,
    reply,
    commit: input.staged.filter((a) => a.gate === 'none'),
    pin: input.staged.filter((a) => a.gate !== 'none'),
    handoffUntil: null,
    replyRoute: routeOf(reply, input.deferred),
    recordAgentReply: true,
  };
}

function routeOf(reply: OutgoingReply, deferred: boolean): TurnDecision['replyRoute'] {
  if (!reply.text) return 'none';
  return deferred ? 'outbox' : 'webhook';
}

function fallback(input: DecideInput, decision: 'veto' | 'error', reason: string): TurnDecision {
  const reply: OutgoingReply = {
    text: input.words?.say('fallbackReply') ?? input.config.fallbackReply,
    quickReplies: [],
  };
  return {
    decision,
    reason,
    reply,
    commit: [],
    pin: [],
    handoffUntil: null,
    replyRoute: routeOf(reply, input.deferred),
    recordAgentReply: true,
  };
}

function escalation(input: DecideInput, reason: string): TurnDecision {
  const { handoff } = input.config;
  const reply: OutgoingReply = { text: input.words?.say('handoffReply') ?? handoff.reply, quickReplies: [] };
  return {
    decision: 'escalate',
    reason,
    reply,
    commit: handoffActions(input.config, input.turnId).filter((a) =>
      actionKind(a.kind).performsOn(input.channel ?? 'manychat'),
    ),
    pin: [],
    handoffUntil:
      handoff.silenceMinutes > 0 ? new Date(input.now.getTime() + handoff.silenceMinutes * 60_000).toISOString() : null,
    replyRoute: routeOf(reply, input.deferred),
    recordAgentReply: true,
  };
}

/** Actions the system (not the model) performs when a turn escalates: the tenant's handoff. */
export function handoffActions(
  config: Pick<TenantConfig, 'handoff'> & { messenger?: Pick<TenantConfig['messenger'], 'handoverAppId'> },
  turnId: string,
): StagedAction[] {
  return [...tagHandoff(config, turnId), ...threadHandover(config, turnId)];
}

/** Messenger's Handover Protocol: the thread to the tenant's human-facing app (performed only on Messenger). */
function threadHandover(
  config: { messenger?: Pick<TenantConfig['messenger'], 'handoverAppId'> },
  turnId: string,
): StagedAction[] {
  const targetAppId = config.messenger?.handoverAppId;
  if (!targetAppId) return [];
  return [
    {
      id: `${turnId}.h2`,
      tool: 'system:handoff',
      kind: 'pass_thread_control',
      args: { targetAppId, metadata: `handoff from turn ${turnId}` },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `handoff: hand the thread to app ${targetAppId}`,
    },
  ];
}

function tagHandoff(config: Pick<TenantConfig, 'handoff'>, turnId: string): StagedAction[] {
  if (!config.handoff.tag) return [];
  return [
    {
      id: `${turnId}.h1`,
      tool: 'system:handoff',
      kind: 'add_tag',
      args: { tag: config.handoff.tag },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `handoff: add tag "${config.handoff.tag}"`,
    },
  ];
}

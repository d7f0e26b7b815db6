import type { Reply } from '../../core/reply.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { OutgoingReply } from '../../core/turn-record.js';
import type { Decision } from '../../core/verdict.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';

export interface DecisionOutcome {
  reply: OutgoingReply;
  /** Actions for the outbox. On anything but pass, none of the model's. */
  committed: StagedAction[];
  handoffUntil: string | null;
}

/** Actions the system (not the model) performs when a turn escalates: the tenant's handoff. */
export function handoffActions(config: TenantConfig, turnId: string): StagedAction[] {
  const actions: StagedAction[] = [];
  if (config.handoff.tag) {
    actions.push({
      id: `${turnId}.h1`,
      tool: 'system:handoff',
      kind: 'add_tag',
      args: { tag: config.handoff.tag },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `handoff: add tag "${config.handoff.tag}"`,
    });
  }
  return actions;
}

/**
 * pass → the model's reply and staged actions; veto → the tenant's fallback and nothing;
 * escalate → the handoff reply and the handoff's own actions; error → the fallback and nothing.
 */
export function decide(decision: Decision, config: TenantConfig, turnId: string, reply: Reply | null, staged: StagedAction[], now: Date): DecisionOutcome {
  switch (decision) {
    case 'pass':
      return {
        reply: { text: reply?.text ?? config.fallbackReply, quickReplies: (reply?.quickReplies ?? []).map((caption) => ({ caption })) },
        committed: staged.filter((a) => a.gate === 'none'),
        handoffUntil: null,
      };
    case 'escalate':
      return {
        reply: { text: config.handoff.reply, quickReplies: [] },
        committed: handoffActions(config, turnId),
        handoffUntil: config.handoff.silenceMinutes > 0 ? new Date(now.getTime() + config.handoff.silenceMinutes * 60_000).toISOString() : null,
      };
    case 'veto':
    case 'error':
      return { reply: { text: config.fallbackReply, quickReplies: [] }, committed: [], handoffUntil: null };
  }
}

import { tool, type Tool } from 'ai';
import type { ActionKindDefinition } from '../core/actions/action-kind.js';
import type { ActionKind } from '../core/actions/index.js';
import type { ToolInstance } from '../core/tenant/tenant-config.js';
import { envelope } from '../core/tool-envelope.js';
import { stagedMessage } from './staged-message.js';
import type { ToolContext, WritePolicy } from './tool-context.js';

/**
 * The model-facing tool for any action kind that offers one (core/actions/): the kind says what
 * the model may choose from and how its choice becomes arguments; this only stages. Nothing
 * here performs anything: the action waits in the turn's staging area for the guardrails.
 */
export function stagingTool(instance: ToolInstance, kind: ActionKindDefinition, ctx: ToolContext, policy: WritePolicy): Tool {
  const spec = kind.tool;
  if (!spec) throw new Error(`action kind ${kind.name} offers no staging tool`);
  return tool({
    description: `${instance.description} ${spec.describe(ctx.config)}`,
    inputSchema: spec.input(ctx.config),
    execute: async (input: unknown) => {
      const resolved = spec.resolve(input, ctx.config);
      if (!resolved.ok) return envelope.denied(resolved.refusal);
      const action = ctx.staging.stage({
        tool: instance.name,
        kind: kind.name as ActionKind,
        args: resolved.args,
        effect: policy.effect,
        idempotent: kind.idempotent,
        gate: policy.gate,
        summary: resolved.summary,
      });
      return stagedMessage(action);
    },
  });
}

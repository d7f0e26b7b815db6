import { tool, type Tool } from 'ai';
import type { ActionKindDefinition } from '../core/actions/action-kind.js';
import type { ActionKind } from '../core/actions/index.js';
import { effectiveGate, toolScope } from '../core/tenant/resource-gates.js';
import type { ToolInstance } from '../core/tenant/tenant-config.js';
import { envelope } from '../core/tool-envelope.js';
import { perConfig, wrappedSchema } from './schema-cache.js';
import { stagedMessage } from './staged-message.js';
import type { ToolContext, WritePolicy } from './tool-context.js';

/**
 * The model-facing tool for any action kind that offers one (core/actions/): the kind says what
 * the model may choose from and how its choice becomes arguments; this only stages. The tool sees
 * only the resources it may act on (its manifest `resources`, or all of its kind), and the staged
 * action waits for the strongest gate any tool puts on that resource (core/tenant/resource-gates).
 * Nothing here performs anything: the action waits in the turn's staging area for the guardrails.
 */
export function stagingTool(
  instance: ToolInstance,
  kind: ActionKindDefinition,
  ctx: ToolContext,
  policy: WritePolicy,
  shortlisted?: readonly string[],
): Tool {
  const spec = kind.tool;
  if (!spec) throw new Error(`action kind ${kind.name} offers no staging tool`);
  // What the model sees depends only on the config: built once per config, not per turn.
  // A shortlisted turn narrows the scope further (tools/shortlist.ts); each narrowing is cached too.
  const key = shortlisted ? `staging:${instance.name}:${shortlisted.join('\u0000')}` : `staging:${instance.name}`;
  const { view, description, inputSchema } = perConfig(ctx.config, key, () => {
    const scope = new Set(toolScope(ctx.config, instance.name).filter((r) => !shortlisted || shortlisted.includes(r)));
    const narrowed = spec.narrow(ctx.config, (resource) => scope.has(resource));
    return {
      view: narrowed,
      description: `${instance.description} ${spec.describe(narrowed)}`,
      inputSchema: wrappedSchema(spec.input(narrowed)),
    };
  });
  return tool({
    description,
    inputSchema,
    execute: async (input: unknown) => {
      const resolved = spec.resolve(input, view);
      if (!resolved.ok) return envelope.denied(resolved.refusal);
      const action = ctx.staging.stage({
        tool: instance.name,
        kind: kind.name as ActionKind,
        args: resolved.args,
        effect: policy.effect,
        idempotent: kind.idempotent,
        gate: effectiveGate(ctx.config, instance.name, kind.resource(resolved.args)),
        summary: resolved.summary,
      });
      return stagedMessage(action);
    },
  });
}

import { tool } from 'ai';
import { z } from 'zod';
import { envelope } from '../../core/tool-envelope.js';
import type { ToolContext, WritePolicy } from '../tool-context.js';
import { stagedMessage } from '../staged-message.js';
import type { ToolInstance } from '../../core/tenant/tenant-config.js';

/** Stages a ManyChat sendFlow of one of the tenant's configured flows (brochure, video, ...). */
export function sendFlowTool(instance: ToolInstance, ctx: ToolContext, policy: WritePolicy) {
  const allowed = ctx.config.flows.map((f) => f.name);
  return tool({
    description: `${instance.description} Flows: ${ctx.config.flows.map((f) => `${f.name} (${f.description})`).join('; ') || 'none configured'}.`,
    inputSchema: z.object({ flow: z.string().describe(`One of: ${allowed.join(', ') || '(none)'}`) }),
    execute: async ({ flow }) => {
      const config = ctx.config.flows.find((f) => f.name === flow);
      if (!config) return envelope.denied(`Refused: flow "${flow}" is not configured. Allowed flows: ${allowed.join(', ') || 'none'}.`);
      const action = ctx.staging.stage({
        tool: instance.name,
        kind: 'send_flow',
        args: { flowNs: config.ns, flowName: config.name },
        effect: policy.effect,
        idempotent: false,
        gate: policy.gate,
        summary: `send flow "${config.name}" (${config.description})`,
      });
      return stagedMessage(action);
    },
  });
}

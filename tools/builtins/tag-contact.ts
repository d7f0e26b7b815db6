import { tool } from 'ai';
import { z } from 'zod';
import { envelope } from '../../core/tool-envelope.js';
import type { ToolContext, WritePolicy } from '../tool-context.js';
import { stagedMessage } from '../staged-message.js';
import type { ToolInstance } from '../../core/tenant/tenant-config.js';

/** Stages adding or removing one of the tenant's configured tags. */
export function tagContactTool(instance: ToolInstance, ctx: ToolContext, policy: WritePolicy, mode: 'add' | 'remove') {
  const allowed = ctx.config.tags.map((t) => t.name);
  return tool({
    description: `${instance.description} Tags: ${allowed.join(', ') || 'none configured'}.`,
    inputSchema: z.object({ tag: z.string().describe(`One of: ${allowed.join(', ') || '(none)'}`) }),
    execute: async ({ tag }) => {
      if (!allowed.includes(tag)) return envelope.denied(`Refused: tag "${tag}" is not configured. Allowed tags: ${allowed.join(', ') || 'none'}.`);
      const action = ctx.staging.stage({
        tool: instance.name,
        kind: mode === 'add' ? 'add_tag' : 'remove_tag',
        args: { tag },
        effect: policy.effect,
        idempotent: true,
        gate: policy.gate,
        summary: `${mode} tag "${tag}"`,
      });
      return stagedMessage(action);
    },
  });
}

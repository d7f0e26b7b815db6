import { tool } from 'ai';
import { z } from 'zod';
import { envelope } from '../result-envelope.js';
import type { ToolContext } from '../tool-context.js';
import type { ToolInstance } from '../../src/tenants/tenant-config.js';

/** Stages adding or removing one of the tenant's configured tags. */
export function tagContactTool(instance: ToolInstance, ctx: ToolContext, mode: 'add' | 'remove') {
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
        effect: 'write',
        idempotent: true,
        gate: 'none',
        summary: `${mode} tag "${tag}"`,
      });
      return envelope.staged(`Staged (not yet applied): ${mode} tag "${tag}".`, [{ actionId: action.id, kind: action.kind, summary: action.summary }]);
    },
  });
}

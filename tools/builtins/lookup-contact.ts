import { tool } from 'ai';
import { z } from 'zod';
import { markAsData } from '../data-marking.js';
import { envelope } from '../../core/tool-envelope.js';
import type { ToolContext } from '../tool-context.js';
import type { ToolInstance } from '../../core/tenant/tenant-config.js';
import { wrappedSchema } from '../schema-cache.js';

/** Built once (its JSON Schema computed once, see tools/schema-cache.ts). */
const NO_INPUT = wrappedSchema(z.object({}));

/** Reads the contact's name and custom fields as ManyChat sent them with the message. */
export function lookupContactTool(instance: ToolInstance, ctx: ToolContext) {
  return tool({
    description: instance.description,
    inputSchema: NO_INPUT,
    execute: async () => {
      const { name, fields } = ctx.inbound.contact;
      return envelope.ok(markAsData('contact fields', JSON.stringify({ name: name ?? null, fields })));
    },
  });
}

import { tool } from 'ai';
import { z } from 'zod';
import { markAsData } from '../data-marking.js';
import { envelope } from '../../core/tool-envelope.js';
import type { ToolContext } from '../tool-context.js';
import type { TenantConfig, ToolInstance } from '../../core/tenant/tenant-config.js';
import { wrappedSchema } from '../schema-cache.js';

/** Built once (its JSON Schema computed once, see tools/schema-cache.ts). */
const QUERY_INPUT = wrappedSchema(z.object({ query: z.string().min(1).max(500) }));

const STOP = new Set([
  'the',
  'and',
  'for',
  'you',
  'your',
  'are',
  'what',
  'how',
  'can',
  'does',
  'with',
  'this',
  'that',
  'have',
  'from',
  'about',
  'is',
  'do',
  'a',
  'an',
  'to',
  'of',
  'in',
  'on',
  'i',
  'my',
  'me',
]);

export function significantWords(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length >= 3 && !STOP.has(w)),
  );
}

/** Ranks FAQ entries by shared significant words with the query; best first, ties by id. */
export function rankFaq(config: TenantConfig, query: string, limit = 3) {
  const q = significantWords(query);
  return config.faq
    .map((entry) => {
      const words = significantWords(`${entry.question} ${entry.answer}`);
      let score = 0;
      for (const w of q) if (words.has(w)) score++;
      return { entry, score };
    })
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || (a.entry.id < b.entry.id ? -1 : 1))
    .slice(0, limit)
    .map((r) => r.entry);
}

/**
 * Searches the tenant's FAQ. Declared `answers_directly`, the best entry's answer (tenant-written
 * text) is itself the reply: status `ok` with the answer, and the turn ends without a second model
 * call; no match is plain content, which the model must read and answer.
 */
export function searchFaqTool(instance: ToolInstance, ctx: ToolContext, answersDirectly = false) {
  return tool({
    description: instance.description,
    inputSchema: QUERY_INPUT,
    execute: async ({ query }) => {
      const hits = rankFaq(ctx.config, query);
      if (answersDirectly) return hits[0] ? envelope.ok(hits[0].answer) : 'No FAQ entry matches.';
      if (!hits.length) return envelope.ok('No FAQ entry matches.');
      return envelope.ok(markAsData('faq', JSON.stringify(hits)));
    },
  });
}

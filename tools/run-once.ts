import type { Tool } from 'ai';
import { canonicalJson } from '../core/canonical-json.js';

/**
 * Identical calls (tool + canonical arguments) in one turn run once: a repeat — in the same step
 * or the next — gets the first call's result, without running the tool again. A model that asks
 * twice stages nothing twice and reads nothing twice.
 */
export function runEachCallOnce(tools: Record<string, Tool>): Record<string, Tool> {
  const results = new Map<string, unknown>();
  const out: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (!execute) {
      out[name] = tool;
      continue;
    }
    out[name] = {
      ...tool,
      execute: (input: unknown, options: Parameters<typeof execute>[1]) => {
        const key = `${name}\n${canonicalJson(input)}`;
        if (!results.has(key)) results.set(key, execute(input, options));
        return results.get(key) as ReturnType<typeof execute>;
      },
    } as Tool;
  }
  return out;
}

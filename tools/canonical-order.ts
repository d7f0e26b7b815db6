import { checkToolOrder, compareCodeUnits, REST_ENTRY, ToolOrderError } from '../core/tenant/tool-order.js';

/**
 * The canonical order of `toolNames` (rules in core/tenant/tool-order.ts): the model-facing tool
 * list has one order whatever order tools were registered in, so the bytes sent to the provider
 * are stable. Throws ToolOrderError when `toolOrder` is invalid.
 */
export function canonicalToolOrder(toolNames: readonly string[], toolOrder?: readonly string[]): string[] {
  const sorted = [...new Set(toolNames)].sort(compareCodeUnits);
  if (!toolOrder) return sorted;
  const problems = checkToolOrder(toolOrder, toolNames);
  if (problems.length) throw new ToolOrderError(problems);
  const listed = new Set(toolOrder);
  const unlisted = sorted.filter((n) => !listed.has(n));
  return toolOrder.flatMap((n) => (n === REST_ENTRY ? unlisted : [n]));
}

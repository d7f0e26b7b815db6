/**
 * The rules of a tenant's tool order (part of the tenant config, so checked when it is saved).
 * The model-facing tool list has one order, whatever order tools were registered in, so the
 * bytes sent to the provider are stable and its prompt cache stays warm. Default: code-unit
 * lexicographic. A tenant `toolOrder` lists tools explicitly and must contain the rest entry
 * exactly once; unlisted tools go there, lexicographically.
 */
export const REST_ENTRY = '<unlisted-tools>';

export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Problems with a toolOrder against the tools that exist; empty when it is valid. */
export function checkToolOrder(toolOrder: readonly string[], toolNames: readonly string[]): string[] {
  const problems: string[] = [];
  const known = new Set(toolNames);
  const seen = new Set<string>();
  let rest = 0;
  for (const name of toolOrder) {
    if (name === REST_ENTRY) {
      rest++;
      continue;
    }
    if (seen.has(name)) problems.push(`toolOrder names "${name}" twice`);
    seen.add(name);
    if (!known.has(name)) problems.push(`toolOrder names "${name}", which is not a tool`);
  }
  if (rest !== 1) problems.push(`toolOrder must contain "${REST_ENTRY}" exactly once (found ${rest})`);
  for (const name of toolNames) if (name === REST_ENTRY) problems.push(`a tool may not be named "${REST_ENTRY}"`);
  return problems;
}

export class ToolOrderError extends Error {
  override name = 'ToolOrderError';
  constructor(readonly problems: string[]) {
    super(`invalid tool order: ${problems.join('; ')}`);
  }
}

import { findActionKind } from '../actions/index.js';
import { gateOf, type Gate } from './manifest.js';
import type { ActionConfigView } from '../actions/config-view.js';
import type { Manifest } from './manifest.js';

/** What the gates read of a tenant config (structural: the config's own schema calls resourceProblems). */
type TenantConfig = ActionConfigView & { tools: readonly { name: string; kind: string }[]; manifest: Manifest };

/**
 * A gate (confirm, approval) binds to the resource it protects — a flow, a tag, a field — not
 * only to a tool's name. Every tool of a kind can name every configured resource of that kind,
 * so a gate on `send_tour` would mean nothing if `send_media` could send the same flow ungated.
 * A write tool acts on the resources its manifest lists (`resources`), or, when it lists none,
 * on every configured resource of its kind; the same kind of action on a resource that several
 * tools act on takes the strongest of their gates, whichever of them stages it. (Kinds differ:
 * approving the removal of a tag does not gate adding it.)
 */
const STRENGTH: Record<Gate, number> = { none: 0, confirm: 1, approval: 2 };

export function strongerGate(a: Gate, b: Gate): Gate {
  return STRENGTH[b] > STRENGTH[a] ? b : a;
}

/** The resources a configured write tool may act on (empty for a read tool or an unknown one). */
export function toolScope(config: TenantConfig, toolName: string): string[] {
  const instance = config.tools.find((t) => t.name === toolName);
  const declaration = config.manifest[toolName];
  if (!instance || !declaration || declaration.effect === 'read') return [];
  const spec = findActionKind(instance.kind)?.tool;
  if (!spec) return [];
  const all = spec.resources(config);
  return declaration.resources ? all.filter((r) => declaration.resources!.includes(r)) : all;
}

/** The gate an action on `resource` staged through `toolName` must wait for. */
export function effectiveGate(config: TenantConfig, toolName: string, resource: string | null): Gate {
  const declaration = config.manifest[toolName];
  let gate: Gate = declaration ? gateOf(declaration) : 'none';
  const kind = config.tools.find((t) => t.name === toolName)?.kind;
  // Every tool of the same kind whose scope holds the resource lends its gate. No test of the
  // tool's own or a read tool is needed: a read or undeclared tool's scope is empty, and the tool
  // itself lends the gate we start from. With no resource, or no configured tool (no kind),
  // nothing matches.
  const same = sameResource(config, resource);
  for (const other of config.tools) {
    if (other.kind !== kind || !toolScope(config, other.name).some((r) => same.includes(r))) continue;
    // A non-empty scope means the tool is declared (toolScope).
    gate = strongerGate(gate, gateOf(config.manifest[other.name]!));
  }
  return gate;
}

/**
 * The names of one resource: a ManyChat flow is its `ns`, so two config names for one `ns` are the
 * same flow and share its gates. A save refuses such a config (sharedFlowNsProblems); a stored one is
 * still gated by the flow, not by the name.
 */
function sameResource(config: TenantConfig, resource: string | null): (string | null)[] {
  const flow = resource?.startsWith('flow:') ? config.flows.find((f) => `flow:${f.name}` === resource) : undefined;
  return flow ? config.flows.filter((f) => f.ns === flow.ns).map((f) => `flow:${f.name}`) : [resource];
}

/** Config problems: two flow names for one ManyChat flow (one `ns`) would be two gates for one flow. */
export function sharedFlowNsProblems(config: Pick<TenantConfig, 'flows'>): string[] {
  const first = new Map<string, string>();
  const problems: string[] = [];
  for (const f of config.flows) {
    const earlier = first.get(f.ns);
    if (earlier !== undefined)
      problems.push(
        `flows "${earlier}" and "${f.name}" are the same ManyChat flow (ns "${f.ns}"): give each flow one name`,
      );
    else first.set(f.ns, f.name);
  }
  return problems;
}

/** Config problems: a tool's `resources` naming something its kind cannot act on here. */
export function resourceProblems(config: TenantConfig): string[] {
  const problems: string[] = [];
  for (const instance of config.tools) {
    const declared = config.manifest[instance.name]?.resources;
    if (!declared) continue;
    const spec = findActionKind(instance.kind)?.tool;
    const known = spec ? spec.resources(config) : [];
    for (const r of declared)
      if (!known.includes(r))
        problems.push(
          `tool "${instance.name}": resources names "${r}", which is not a configured ${instance.kind} resource (known: ${known.join(', ') || 'none'})`,
        );
  }
  return problems;
}

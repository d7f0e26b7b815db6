import type { Manifest } from './manifest.js';
import { isReadToolKind } from './read-tool-kinds.js';

/** A configured tool as this check needs it (a `ToolInstance` of the tenant config). */
interface ConfiguredTool {
  name: string;
  kind: string;
}

/** Kinds whose output can be the reply itself (`answers_directly`). */
export const DIRECT_ANSWER_KINDS: ReadonlySet<string> = new Set(['search_faq']);

/**
 * Why a configured tool cannot be registered under this manifest, or null if it can. One rule for
 * the turn (such a tool is not offered; tools/registry.ts) and for the save (a `toolOrder` that
 * names such a tool is a configuration error, core/tenant/tenant-config.ts).
 */
export function registrationProblem(instance: ConfiguredTool, manifest: Manifest, tenantId: string): string | null {
  const declaration = Object.hasOwn(manifest, instance.name) ? manifest[instance.name] : undefined;
  if (!declaration)
    return `tool "${instance.name}" is not declared in tenant "${tenantId}"'s manifest; it was not registered`;
  const kindEffect = isReadToolKind(instance.kind) ? 'read' : 'write';
  if (kindEffect === 'read' && declaration.effect !== 'read')
    return `tool "${instance.name}" only reads, but its manifest declares effect ${declaration.effect}; it was not registered`;
  if (kindEffect === 'write' && declaration.effect === 'read')
    return `tool "${instance.name}" stages actions, but its manifest declares effect read; it was not registered`;
  if (declaration.answers_directly && !DIRECT_ANSWER_KINDS.has(instance.kind))
    return `tool "${instance.name}" (${instance.kind}) has no output a contact can read, so it cannot answer directly; it was not registered`;
  return null;
}

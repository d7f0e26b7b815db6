import { z } from 'zod';

/**
 * A tenant's tool manifest: two or three words per tool that decide its behaviour in the core.
 * `effect` read → runs and returns data; write → stages; destructive (removes or overwrites a
 * contact's data) → waits for a tenant approval that pins the exact call.
 */
export const ToolDeclarationSchema = z.strictObject({
  effect: z.enum(['read', 'write', 'destructive'], { error: 'effect must be read, write or destructive' }),
  /** write only; default once: the contact confirms with a button before it is committed. */
  confirm: z.enum(['once', 'never']).optional(),
  /** write only, excludes confirm: an irreversible write waits for a tenant approval. */
  approval: z.literal('pinned').optional(),
  /** Appended to the prompt while the tool is on the loop. */
  guidance: z.string().max(1000).optional(),
  /** The tool shortlist never drops it. */
  pinned: z.boolean().optional(),
  /** read, or write with confirm never: its output is the reply. */
  answers_directly: z.boolean().optional(),
  /** destructive: the tool that reverses it (a write with confirm never). */
  undo: z.string().optional(),
  /**
   * write/destructive: what the tool may act on (`flow:studio_tour`, `tag:vip`, `field:plan`).
   * Absent: every configured resource of its kind. A gate binds to these resources: a resource a
   * gated tool acts on is gated as strongly whichever tool stages it.
   */
  resources: z
    .array(z.string().regex(/^[a-z]+:.+$/, 'a resource is "<type>:<name>", e.g. "flow:brochure"'))
    .min(1)
    .optional(),
});
export type ToolDeclaration = z.infer<typeof ToolDeclarationSchema>;

export const ManifestSchema = z.record(z.string(), ToolDeclarationSchema);
export type Manifest = z.infer<typeof ManifestSchema>;

export type Gate = 'none' | 'confirm' | 'approval';

/** The rules zod's shape cannot say; each problem names the tool and the rule it breaks. */
export function checkManifest(manifest: Manifest): string[] {
  const problems: string[] = [];
  for (const [name, d] of Object.entries(manifest)) {
    const at = `tool "${name}"`;
    if (d.confirm && d.effect !== 'write')
      problems.push(`${at}: confirm is only for write tools (effect is ${d.effect})`);
    if (d.approval && d.effect !== 'write')
      problems.push(
        `${at}: approval: pinned is only for write tools (destructive tools always need approval; read tools never do)`,
      );
    if (d.approval && d.confirm) problems.push(`${at}: approval: pinned excludes confirm`);
    if (d.answers_directly && d.effect === 'destructive')
      problems.push(`${at}: answers_directly is not allowed on a destructive tool`);
    // ADR-0110 amendment: a direct answer's tool has an effective gate of never; an approval is a gate.
    if (d.answers_directly && d.approval)
      problems.push(
        `${at}: answers_directly is not allowed with approval: pinned (a tool whose output is the reply cannot wait for an approval)`,
      );
    else if (d.answers_directly && d.effect === 'write' && effectiveConfirm(d) !== 'never')
      problems.push(`${at}: answers_directly on a write tool needs confirm: never`);
    if (d.resources && d.effect === 'read') problems.push(`${at}: resources is only for write and destructive tools`);
    if (d.undo !== undefined) {
      if (d.effect !== 'destructive') problems.push(`${at}: undo is only for destructive tools`);
      const target = manifest[d.undo];
      if (!target || target.effect !== 'write' || effectiveConfirm(target) !== 'never' || target.approval) {
        problems.push(`${at}: undo names "${d.undo}", which is not a declared write tool with confirm: never`);
      }
    }
  }
  return problems;
}

export function effectiveConfirm(d: ToolDeclaration): 'once' | 'never' {
  return d.confirm ?? (d.approval ? 'never' : 'once');
}

/** What a staged action from this tool must wait for before it is performed. */
export function gateOf(d: ToolDeclaration): Gate {
  if (d.effect === 'read') return 'none';
  if (d.effect === 'destructive' || d.approval === 'pinned') return 'approval';
  return effectiveConfirm(d) === 'once' ? 'confirm' : 'none';
}

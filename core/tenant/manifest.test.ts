import { describe, expect, it } from 'vitest';
import { checkManifest, gateOf, ManifestSchema, ToolDeclarationSchema } from './manifest.js';

const refusal = (manifest: unknown) => {
  const parsed = ManifestSchema.safeParse(manifest);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  return checkManifest(parsed.data).join('; ');
};

describe('tool manifest refusals name the tool and the rule', () => {
  it('refuses an unknown effect', () => {
    expect(refusal({ zap: { effect: 'explode' } })).toMatch(/zap.*effect must be read, write or destructive/);
  });
  it('refuses confirm on a read tool', () => {
    expect(refusal({ look: { effect: 'read', confirm: 'once' } })).toMatch(/tool "look": confirm is only for write tools/);
  });
  it('refuses confirm on a destructive tool', () => {
    expect(refusal({ wipe: { effect: 'destructive', confirm: 'never' } })).toMatch(/tool "wipe": confirm is only for write tools/);
  });
  it('refuses approval together with confirm', () => {
    expect(refusal({ pay: { effect: 'write', approval: 'pinned', confirm: 'once' } })).toMatch(/tool "pay": approval: pinned excludes confirm/);
  });
  it('refuses approval on a read tool', () => {
    expect(refusal({ look: { effect: 'read', approval: 'pinned' } })).toMatch(/tool "look": approval: pinned is only for write tools/);
  });
  it('refuses answers_directly on a destructive tool', () => {
    expect(refusal({ wipe: { effect: 'destructive', answers_directly: true } })).toMatch(/tool "wipe": answers_directly is not allowed on a destructive tool/);
  });
  it('refuses answers_directly on a write tool that asks for confirmation', () => {
    expect(refusal({ note: { effect: 'write', answers_directly: true } })).toMatch(/tool "note": answers_directly on a write tool needs confirm: never/);
  });
  it('refuses an undo that names no tool, a read tool, or a write that needs confirmation', () => {
    expect(refusal({ untag: { effect: 'destructive', undo: 'ghost' } })).toMatch(/tool "untag": undo names "ghost"/);
    expect(refusal({ untag: { effect: 'destructive', undo: 'look' }, look: { effect: 'read' } })).toMatch(/undo names "look"/);
    expect(refusal({ untag: { effect: 'destructive', undo: 'tag' }, tag: { effect: 'write' } })).toMatch(/undo names "tag"/);
  });
  it('refuses undo on a non-destructive tool and unknown keys', () => {
    expect(refusal({ tag: { effect: 'write', confirm: 'never', undo: 'tag' } })).toMatch(/undo is only for destructive tools/);
    expect(refusal({ tag: { effect: 'write', confrim: 'never' } })).toMatch(/tag.*(Unrecognized|unrecognized)/);
  });
  it('accepts a valid manifest', () => {
    expect(refusal({ tag: { effect: 'write', confirm: 'never' }, untag: { effect: 'destructive', undo: 'tag' }, look: { effect: 'read', answers_directly: true } })).toBe('');
  });
});

describe('gates follow the declaration', () => {
  const gate = (d: unknown) => gateOf(ToolDeclarationSchema.parse(d));
  it('a write defaults to a contact confirmation', () => expect(gate({ effect: 'write' })).toBe('confirm'));
  it('confirm never → no gate', () => expect(gate({ effect: 'write', confirm: 'never' })).toBe('none'));
  it('approval pinned → approval', () => expect(gate({ effect: 'write', approval: 'pinned' })).toBe('approval'));
  it('destructive → approval', () => expect(gate({ effect: 'destructive' })).toBe('approval'));
  it('read → none', () => expect(gate({ effect: 'read' })).toBe('none'));
});

import { describe, expect, it } from 'vitest';
import { checkManifest, effectiveConfirm, gateOf, ManifestSchema, ToolDeclarationSchema } from './manifest.js';

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
    expect(refusal({ look: { effect: 'read', confirm: 'once' } })).toMatch(
      /tool "look": confirm is only for write tools/,
    );
  });
  it('refuses confirm on a destructive tool', () => {
    expect(refusal({ wipe: { effect: 'destructive', confirm: 'never' } })).toMatch(
      /tool "wipe": confirm is only for write tools/,
    );
  });
  it('refuses approval together with confirm', () => {
    expect(refusal({ pay: { effect: 'write', approval: 'pinned', confirm: 'once' } })).toMatch(
      /tool "pay": approval: pinned excludes confirm/,
    );
  });
  it('refuses approval on a read tool', () => {
    expect(refusal({ look: { effect: 'read', approval: 'pinned' } })).toMatch(
      /tool "look": approval: pinned is only for write tools/,
    );
  });
  it('refuses answers_directly on a destructive tool', () => {
    expect(refusal({ wipe: { effect: 'destructive', answers_directly: true } })).toMatch(
      /tool "wipe": answers_directly is not allowed on a destructive tool/,
    );
  });
  it('refuses answers_directly on a write tool that asks for confirmation', () => {
    expect(refusal({ note: { effect: 'write', answers_directly: true } })).toMatch(
      /tool "note": answers_directly on a write tool needs confirm: never/,
    );
  });
  it('refuses answers_directly on a write tool that waits for an approval (its effective gate must be never)', () => {
    expect(refusal({ pay: { effect: 'write', approval: 'pinned', answers_directly: true } })).toMatch(
      /tool "pay": answers_directly is not allowed with approval: pinned/,
    );
    expect(refusal({ note: { effect: 'write', confirm: 'never', answers_directly: true } })).toBe('');
  });
  it('refuses an undo that names no tool, a read tool, or a write that needs confirmation', () => {
    expect(refusal({ untag: { effect: 'destructive', undo: 'ghost' } })).toMatch(/tool "untag": undo names "ghost"/);
    expect(refusal({ untag: { effect: 'destructive', undo: 'look' }, look: { effect: 'read' } })).toMatch(
      /undo names "look"/,
    );
    expect(refusal({ untag: { effect: 'destructive', undo: 'tag' }, tag: { effect: 'write' } })).toMatch(
      /undo names "tag"/,
    );
  });
  it('refuses undo on a non-destructive tool and unknown keys', () => {
    expect(refusal({ tag: { effect: 'write', confirm: 'never', undo: 'tag' } })).toMatch(
      /undo is only for destructive tools/,
    );
    expect(refusal({ tag: { effect: 'write', confrim: 'never' } })).toMatch(/tag.*(Unrecognized|unrecognized)/);
  });
  it('accepts answers_directly on a write tool with confirm: never', () => {
    expect(refusal({ note: { effect: 'write', confirm: 'never', answers_directly: true } })).toBe('');
  });
  it('refuses resources on a read tool, accepts them on write and destructive tools', () => {
    expect(refusal({ look: { effect: 'read', resources: ['flow:brochure'] } })).toBe(
      'tool "look": resources is only for write and destructive tools',
    );
    expect(
      refusal({
        send: { effect: 'write', resources: ['flow:brochure'] },
        wipe: { effect: 'destructive', resources: ['tag:vip'] },
      }),
    ).toBe('');
  });
  it('refuses an undo naming a read tool even when it says confirm: never', () => {
    expect(
      refusal({ untag: { effect: 'destructive', undo: 'look' }, look: { effect: 'read', confirm: 'never' } }),
    ).toContain('tool "untag": undo names "look", which is not a declared write tool with confirm: never');
  });
  it('an approval-gated write needs no contact confirmation; otherwise confirm defaults to once', () => {
    expect(effectiveConfirm({ effect: 'write', approval: 'pinned' })).toBe('never');
    expect(effectiveConfirm({ effect: 'write' })).toBe('once');
    expect(effectiveConfirm({ effect: 'write', confirm: 'never' })).toBe('never');
  });
  it('accepts a valid manifest', () => {
    expect(
      refusal({
        tag: { effect: 'write', confirm: 'never' },
        untag: { effect: 'destructive', undo: 'tag' },
        look: { effect: 'read', answers_directly: true },
      }),
    ).toBe('');
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

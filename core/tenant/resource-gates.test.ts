import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/support/guardrail-input.js';
import { effectiveGate, resourceProblems, strongerGate, toolScope } from './resource-gates.js';
import type { TenantConfig } from './tenant-config.js';

const FLOWS = ['flow:brochure', 'flow:studio_tour', 'flow:timetable'];

/** The guardrail tenant with a second send_flow tool, `send_tour`, declared as the test needs. */
function withTourTool(
  tour: TenantConfig['manifest'][string],
  media: TenantConfig['manifest'][string] = { effect: 'write', confirm: 'never' },
): TenantConfig {
  const base = testConfig();
  return {
    ...base,
    tools: [...base.tools, { name: 'send_tour', kind: 'send_flow', description: 'Send the studio tour.' }],
    manifest: { ...base.manifest, send_media: media, send_tour: tour },
  };
}

describe('strongerGate: approval > confirm > none', () => {
  it.each([
    ['none', 'none', 'none'],
    ['none', 'confirm', 'confirm'],
    ['confirm', 'none', 'confirm'],
    ['confirm', 'approval', 'approval'],
    ['approval', 'confirm', 'approval'],
    ['approval', 'none', 'approval'],
    ['confirm', 'confirm', 'confirm'],
  ] as const)('%s, %s → %s', (a, b, stronger) => {
    expect(strongerGate(a, b)).toBe(stronger);
  });
});

describe('toolScope: what a write tool may act on', () => {
  it('every configured resource of its kind when the manifest lists none', () => {
    expect(toolScope(testConfig(), 'send_media')).toEqual(FLOWS);
  });
  it('only the listed resources when the manifest lists some', () => {
    const config = withTourTool({ effect: 'write', confirm: 'once', resources: ['flow:studio_tour'] });
    expect(toolScope(config, 'send_tour')).toEqual(['flow:studio_tour']);
  });
  it('nothing for a staging tool declared read, or a read kind declared write (and no throw)', () => {
    const base = testConfig();
    expect(
      toolScope({ ...base, manifest: { ...base.manifest, tag_contact: { effect: 'read' } } }, 'tag_contact'),
    ).toEqual([]);
    expect(
      toolScope({ ...base, manifest: { ...base.manifest, search_faq: { effect: 'write' } } }, 'search_faq'),
    ).toEqual([]);
  });
  it('nothing for a read tool, an unconfigured tool or a tool with no declaration', () => {
    const config = testConfig();
    expect(toolScope(config, 'search_faq')).toEqual([]);
    expect(toolScope(config, 'no_such_tool')).toEqual([]);
    expect(toolScope({ ...config, manifest: {} }, 'send_media')).toEqual([]);
  });
});

describe('effectiveGate: a gate binds to the resource, whichever tool stages it', () => {
  it('a resource another tool of the same kind gates is gated as strongly through an ungated tool', () => {
    const config = withTourTool({ effect: 'write', confirm: 'once', resources: ['flow:studio_tour'] });
    expect(effectiveGate(config, 'send_media', 'flow:studio_tour')).toBe('confirm');
    // A resource the gated tool does not act on keeps the staging tool's own gate.
    expect(effectiveGate(config, 'send_media', 'flow:brochure')).toBe('none');
  });
  it('the strongest of several gates wins, and a weaker tool never lowers a stronger one', () => {
    const config = withTourTool(
      { effect: 'write', approval: 'pinned', resources: ['flow:studio_tour'] },
      { effect: 'write', confirm: 'once' },
    );
    expect(effectiveGate(config, 'send_media', 'flow:studio_tour')).toBe('approval');
    expect(effectiveGate(config, 'send_tour', 'flow:studio_tour')).toBe('approval');
    expect(effectiveGate(config, 'send_media', 'flow:brochure')).toBe('confirm');
  });
  it('a second config name for the same ManyChat flow (same ns) is the same resource: its gate holds through the other name', () => {
    const base = withTourTool({ effect: 'write', approval: 'pinned', resources: ['flow:studio_tour'] });
    const tour = base.flows.find((f) => f.name === 'studio_tour')!;
    const config: TenantConfig = {
      ...base,
      flows: [...base.flows, { ...tour, name: 'tour_copy', description: 'the same flow under another name' }],
    };
    expect(effectiveGate(config, 'send_media', 'flow:tour_copy')).toBe('approval');
    expect(effectiveGate(config, 'send_media', 'flow:brochure')).toBe('none');
  });

  it('another kind does not gate (approving a removal does not gate adding the tag)', () => {
    const config = testConfig({
      manifest: { ...testConfig().manifest, untag_contact: { effect: 'destructive', undo: 'tag_contact' } },
    });
    expect(effectiveGate(config, 'untag_contact', 'tag:vip')).toBe('approval');
    expect(effectiveGate(config, 'tag_contact', 'tag:vip')).toBe('none');
  });
  it('a tool that acts on several resources gates each of them; one of the same kind with no declaration gates nothing (and no throw)', () => {
    const config = withTourTool({
      effect: 'write',
      confirm: 'once',
      resources: ['flow:studio_tour', 'flow:timetable'],
    });
    expect(effectiveGate(config, 'send_media', 'flow:timetable')).toBe('confirm');
    expect(effectiveGate(config, 'send_media', 'flow:studio_tour')).toBe('confirm');
    const { send_tour: _declared, ...manifest } = config.manifest;
    const undeclared: TenantConfig = { ...config, manifest };
    expect(effectiveGate(undeclared, 'send_media', 'flow:timetable')).toBe('none');
  });
  it('a read tool of the same name, or a tool declared read, gates nothing', () => {
    const base = withTourTool({ effect: 'read' });
    expect(effectiveGate(base, 'send_media', 'flow:studio_tour')).toBe('none');
  });
  it("without a resource or a configured tool, the tool's own gate", () => {
    const config = withTourTool({ effect: 'write', confirm: 'once' });
    expect(effectiveGate(config, 'send_tour', null)).toBe('confirm');
    expect(effectiveGate(config, 'send_media', null)).toBe('none');
    expect(
      effectiveGate(
        { ...config, tools: config.tools.filter((t) => t.name !== 'send_tour') },
        'send_tour',
        'flow:brochure',
      ),
    ).toBe('confirm');
    expect(effectiveGate(config, 'undeclared', 'flow:brochure')).toBe('none');
  });
});

describe('resourceProblems', () => {
  it("names a resource the tool's kind cannot act on here", () => {
    const config = withTourTool({
      effect: 'write',
      confirm: 'once',
      resources: ['flow:studio_tour', 'flow:nope', 'tag:vip'],
    });
    expect(resourceProblems(config)).toEqual([
      'tool "send_tour": resources names "flow:nope", which is not a configured send_flow resource (known: flow:brochure, flow:studio_tour, flow:timetable)',
      'tool "send_tour": resources names "tag:vip", which is not a configured send_flow resource (known: flow:brochure, flow:studio_tour, flow:timetable)',
    ]);
  });
  it('nothing when every listed resource is configured, or none is listed', () => {
    expect(resourceProblems(testConfig())).toEqual([]);
    expect(
      resourceProblems(withTourTool({ effect: 'write', confirm: 'once', resources: ['flow:studio_tour'] })),
    ).toEqual([]);
  });
  it('a tool with no declaration has no resources to check (and does not throw)', () => {
    const base = testConfig();
    const { tag_contact: _dropped, ...manifest } = base.manifest;
    expect(resourceProblems({ ...base, manifest })).toEqual([]);
  });
  it('a kind with no resources knows none', () => {
    const base = testConfig();
    const config = {
      ...base,
      manifest: { ...base.manifest, search_faq: { effect: 'write' as const, resources: ['faq:x'] } },
    };
    expect(resourceProblems(config)).toEqual([
      'tool "search_faq": resources names "faq:x", which is not a configured search_faq resource (known: none)',
    ]);
  });
});

describe('a ManyChat flow has one name: a duplicate ns is refused at save', () => {
  it('names both flows and the ns; distinct ns pass; two tenants may use the same ns each', async () => {
    const { parseTenantConfig } = await import('./tenant-config.js');
    const { guardrailTenantConfig } = await import('../../test/support/guardrail-tenant.js');
    const raw = guardrailTenantConfig('tdup');
    const tour = raw.flows!.find((f) => f.name === 'studio_tour')!;
    const bad = parseTenantConfig({ ...raw, flows: [...raw.flows!, { ...tour, name: 'tour_copy' }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems.join(' ')).toContain(
        `flows "studio_tour" and "tour_copy" are the same ManyChat flow (ns "${tour.ns}")`,
      );
    expect(
      parseTenantConfig({ ...raw, flows: [...raw.flows!, { ...tour, name: 'tour_copy', ns: `${tour.ns}9` }] }).ok,
    ).toBe(true);
    expect(parseTenantConfig({ ...guardrailTenantConfig('tother') }).ok).toBe(true);
  });
});

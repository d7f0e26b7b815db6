import { describe, expect, it } from 'vitest';
import type { TenantConfig, ToolInstance } from '../core/tenant/tenant-config.js';
import { REST_ENTRY, ToolOrderError } from '../core/tenant/tool-order.js';
import { testConfig, turnInput } from '../test/support/guardrail-input.js';
import {
  buildTurnTools,
  effectiveToolOrder,
  effectOfKind,
  manifestDrift,
  registrationProblem,
  REPLY_TOOL_NAME,
} from './registry.js';
import { TurnStaging } from './staging.js';

const inbound = turnInput().inbound;
const ctx = (config: TenantConfig) => ({ config, inbound, staging: new TurnStaging('turn_reg') });
const instance = (name: string, kind: ToolInstance['kind']): ToolInstance =>
  ({ name, kind, description: 'd' }) as ToolInstance;

describe('registrationProblem: the manifest decides what is registered', () => {
  it('an undeclared tool is not registered', () => {
    expect(registrationProblem(instance('ghost', 'add_tag'), {}, 't1')).toBe(
      'tool "ghost" is not declared in tenant "t1"\'s manifest; it was not registered',
    );
  });
  it('a read kind declared as a write (or destructive) is refused, and a staging kind declared read', () => {
    expect(registrationProblem(instance('faq', 'search_faq'), { faq: { effect: 'write' } }, 't')).toBe(
      'tool "faq" only reads, but its manifest declares effect write; it was not registered',
    );
    expect(registrationProblem(instance('faq', 'search_faq'), { faq: { effect: 'destructive' } }, 't')).toContain(
      'only reads',
    );
    expect(registrationProblem(instance('tagger', 'add_tag'), { tagger: { effect: 'read' } }, 't')).toBe(
      'tool "tagger" stages actions, but its manifest declares effect read; it was not registered',
    );
  });
  it('only a search_faq may answer directly', () => {
    expect(
      registrationProblem(instance('faq', 'search_faq'), { faq: { effect: 'read', answers_directly: true } }, 't'),
    ).toBeNull();
    expect(
      registrationProblem(instance('who', 'lookup_contact'), { who: { effect: 'read', answers_directly: true } }, 't'),
    ).toBe(
      'tool "who" (lookup_contact) has no output a contact can read, so it cannot answer directly; it was not registered',
    );
    expect(
      registrationProblem(
        instance('tagger', 'add_tag'),
        { tagger: { effect: 'write', confirm: 'never', answers_directly: true } },
        't',
      ),
    ).toContain('cannot answer directly');
  });
  it('a matching declaration registers', () => {
    expect(registrationProblem(instance('tagger', 'add_tag'), { tagger: { effect: 'write' } }, 't')).toBeNull();
    expect(
      registrationProblem(instance('untagger', 'remove_tag'), { untagger: { effect: 'destructive' } }, 't'),
    ).toBeNull();
    expect(registrationProblem(instance('who', 'lookup_contact'), { who: { effect: 'read' } }, 't')).toBeNull();
  });
});

describe('effectOfKind', () => {
  it('read kinds read, every other kind writes', () => {
    expect(effectOfKind('search_faq')).toBe('read');
    expect(effectOfKind('lookup_contact')).toBe('read');
    expect(effectOfKind('add_tag')).toBe('write');
    expect(effectOfKind('send_flow')).toBe('write');
  });
});

describe('manifestDrift', () => {
  it('lists declared-but-unregistered and registered-but-undeclared tools, sorted', () => {
    const base = testConfig();
    const config = {
      ...base,
      tools: [...base.tools, instance('zed', 'add_tag'), instance('alpha', 'add_tag')],
      manifest: { ...base.manifest, ghost_b: { effect: 'read' as const }, ghost_a: { effect: 'read' as const } },
    };
    expect(manifestDrift(config)).toEqual({
      declaredNotRegistered: ['ghost_a', 'ghost_b'],
      registeredNotDeclared: ['alpha', 'zed'],
    });
    expect(manifestDrift(base)).toEqual({ declaredNotRegistered: [], registeredNotDeclared: [] });
  });
});

describe('buildTurnTools: the model sees the registered tools and reply, in canonical order', () => {
  it('registers every declared tool and the reply tool, in code-unit order, with their declarations', () => {
    const config = testConfig();
    const set = buildTurnTools(ctx(config));
    const expected = [...config.tools.map((t) => t.name), REPLY_TOOL_NAME].sort();
    expect(set.order).toEqual(expected);
    expect(Object.keys(set.tools)).toEqual(expected);
    expect(set.refused).toEqual([]);
    expect(set.declarations).toEqual(Object.fromEntries(config.tools.map((t) => [t.name, config.manifest[t.name]])));
    expect(set.declarations[REPLY_TOOL_NAME]).toBeUndefined();
    // The reply tool ends the loop: it has no execute. Every other tool runs.
    expect(set.tools[REPLY_TOOL_NAME]?.execute).toBeUndefined();
    for (const t of config.tools) expect(typeof set.tools[t.name]?.execute, t.name).toBe('function');
  });

  it('a refused tool is not offered, and says why', () => {
    const base = testConfig();
    const config = { ...base, manifest: { ...base.manifest, tag_contact: { effect: 'read' as const } } };
    const set = buildTurnTools(ctx(config));
    expect(set.order).not.toContain('tag_contact');
    expect(set.tools.tag_contact).toBeUndefined();
    expect(set.refused).toEqual([
      'tool "tag_contact" stages actions, but its manifest declares effect read; it was not registered',
    ]);
  });

  it('a channel is not offered a write it cannot perform, and says why; reads and writes it can perform stay', () => {
    const config = testConfig();
    const set = buildTurnTools({
      config,
      inbound: { ...inbound, channel: 'messenger' },
      staging: new TurnStaging('turn_reg'),
    });
    const writes = config.tools.filter((t) => !['lookup_contact', 'search_faq'].includes(t.kind));
    expect(writes.length).toBeGreaterThan(0);
    for (const t of writes) expect(set.order, t.name).not.toContain(t.name);
    expect(set.refused).toEqual(
      writes.map(
        (t) => `tool "${t.name}" stages ${t.kind}, which channel messenger cannot perform; not offered on this channel`,
      ),
    );
    expect(set.order).toEqual(
      expect.arrayContaining([REPLY_TOOL_NAME, ...config.tools.filter((t) => !writes.includes(t)).map((t) => t.name)]),
    );
  });

  it('effectiveToolOrder: the order the model is offered (reply included) and why a configured tool is not, as buildTurnTools has them', () => {
    const base = testConfig();
    expect(effectiveToolOrder(base)).toEqual({ order: buildTurnTools(ctx(base)).order, notRegistered: [] });
    const refusedTag = {
      ...base,
      manifest: { ...base.manifest, tag_contact: { effect: 'read' as const } },
      toolOrder: ['tag_contact', 'reply', REST_ENTRY],
    };
    const effective = effectiveToolOrder(refusedTag);
    expect(effective.notRegistered).toEqual([
      'tool "tag_contact" stages actions, but its manifest declares effect read; it was not registered',
    ]);
    expect(effective.order[0]).toBe('reply');
    expect(effective.order).not.toContain('tag_contact');
    expect(effective.order).toEqual(buildTurnTools(ctx(refusedTag), refusedTag.toolOrder).order);
  });

  it('a tenant order is followed; naming a refused tool is not an error, naming an unknown one is', () => {
    const base = testConfig();
    const order = ['reply', REST_ENTRY, 'search_faq'];
    expect(buildTurnTools(ctx(base), order).order.slice(0, 1)).toEqual(['reply']);
    expect(buildTurnTools(ctx(base), order).order.at(-1)).toBe('search_faq');
    const refusedTag = { ...base, manifest: { ...base.manifest, tag_contact: { effect: 'read' as const } } };
    expect(buildTurnTools(ctx(refusedTag), ['tag_contact', 'reply', REST_ENTRY]).order[0]).toBe('reply');
    expect(() => buildTurnTools(ctx(base), ['nope', REST_ENTRY])).toThrow(ToolOrderError);
  });

  it('a destructive tool stages a destructive action (approval), a write tool a plain one', async () => {
    const config = testConfig({
      manifest: { ...testConfig().manifest, untag_contact: { effect: 'destructive', undo: 'tag_contact' } },
    });
    const c = ctx(config);
    const set = buildTurnTools(c);
    const opts = { toolCallId: 'c1', messages: [], context: {} };
    await set.tools.untag_contact!.execute!({ tag: 'newsletter' }, opts);
    await set.tools.tag_contact!.execute!({ tag: 'interested' }, { ...opts, toolCallId: 'c2' });
    expect(c.staging.actions.map((a) => [a.tool, a.effect, a.gate])).toEqual([
      ['untag_contact', 'destructive', 'approval'],
      ['tag_contact', 'write', 'none'],
    ]);
  });

  it('each read tool is its own: lookup_contact reads the contact, search_faq the FAQ', async () => {
    const config = testConfig();
    const set = buildTurnTools(ctx(config));
    const opts = { toolCallId: 'c1', messages: [], context: {} };
    const contact = await set.tools.lookup_contact!.execute!({}, opts);
    expect(JSON.stringify(contact)).toContain('contact fields');
    const faq = await set.tools.search_faq!.execute!({ query: 'opening hours' }, opts);
    expect(JSON.stringify(faq)).not.toContain('contact fields');
  });

  it("answers_directly makes the FAQ answer itself the tool's content (unmarked); otherwise it is marked data", async () => {
    const base = testConfig();
    const question = base.faq[0]!;
    const opts = { toolCallId: 'c1', messages: [], context: {} };
    const plain = await buildTurnTools(ctx(base)).tools.search_faq!.execute!({ query: question.question }, opts);
    expect(plain).toMatchObject({ status: 'ok' });
    expect((plain as { content: string }).content).toContain('<untrusted-data source="faq">');
    const direct = {
      ...base,
      manifest: { ...base.manifest, search_faq: { effect: 'read' as const, answers_directly: true } },
    };
    const answered = await buildTurnTools(ctx(direct)).tools.search_faq!.execute!({ query: question.question }, opts);
    expect(answered).toEqual({ content: question.answer, effects: [], status: 'ok' });
  });

  it('the reply tool describes itself and validates the reply', () => {
    const reply = buildTurnTools(ctx(testConfig())).tools[REPLY_TOOL_NAME]!;
    expect(reply.description).toContain('Call exactly once, last.');
    expect(reply.inputSchema).toBeDefined();
  });
});

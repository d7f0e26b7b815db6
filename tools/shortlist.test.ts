import { describe, expect, it } from 'vitest';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { testConfig, turnInput } from '../test/support/guardrail-input.js';
import { buildTurnTools } from './registry.js';
import { cheaperMenuThreshold } from './menu-cost.js';
import { shortlist } from './shortlist.js';
import { TurnStaging } from './staging.js';

/** A large tenant: 60 flows, 40 tags, 15 fields, each named after a word no other resource uses. */
function largeConfig(maxToolTokens?: number): TenantConfig {
  return testConfig({
    flows: Array.from({ length: 60 }, (_, i) => ({
      name: `flow${i}`,
      ns: `content20260101000000_${i}`,
      description: `Sends the walkthrough of marvel${i}.`,
      keywords: [`keyflow${i}`],
    })),
    tags: [
      { name: 'human_handoff', description: '' },
      ...Array.from({ length: 40 }, (_, i) => ({ name: `tag${i}`, description: `Contact is into hobby${i}.` })),
    ],
    fields: Array.from({ length: 15 }, (_, i) => ({
      name: `field${i}`,
      type: 'text' as const,
      description: `Preferred gadget${i}.`,
    })),
    tools: [
      { name: 'send_media', kind: 'send_flow', description: 'Send a flow.' },
      { name: 'tag_contact', kind: 'add_tag', description: 'Tag the contact.' },
      { name: 'record_choice', kind: 'set_field', description: 'Record a custom field.' },
      { name: 'lookup_contact', kind: 'lookup_contact', description: 'Read the contact profile.' },
      { name: 'search_faq', kind: 'search_faq', description: 'Search the studio FAQ.' },
    ],
    manifest: {
      send_media: { effect: 'write', confirm: 'never' },
      tag_contact: { effect: 'write', confirm: 'never' },
      record_choice: { effect: 'write', confirm: 'never' },
      lookup_contact: { effect: 'read', pinned: true },
      search_faq: { effect: 'read' },
    },
    toolOrder: undefined,
    ...(maxToolTokens === undefined ? {} : { shortlist: { maxToolTokens } }),
  });
}

const inbound = turnInput().inbound;
function toolBytes(config: TenantConfig, texts: string[]): string {
  const set = buildTurnTools(
    { config, inbound, staging: new TurnStaging('turn_sl') },
    config.toolOrder,
    shortlist(config, texts),
  );
  return JSON.stringify(set.order.map((name) => [name, set.tools[name]!.description]));
}

describe('tool shortlist', () => {
  it('is off while the menu fits the default size: the demo-sized tenant and a large one under the default', () => {
    const small = testConfig();
    expect(shortlist(small, ['xylophone']).active).toBe(false);
    expect(shortlist(small, ['xylophone']).dropped).toEqual([]);
    const large = largeConfig();
    const list = shortlist(large, ['xylophone']);
    expect(list.active).toBe(false);
    expect(list.fullTokens).toBeGreaterThan(500);
  });

  it('with no size set, the default is the size past which the shortlist is cheaper (tools/menu-cost.ts): on for a menu past it, off below, per tenant', () => {
    const huge = (flows: number): TenantConfig => {
      const base = largeConfig();
      return testConfig({
        ...base,
        flows: Array.from({ length: flows }, (_, i) => ({
          name: `flow${i}`,
          ns: `content20260101000000_${i}`,
          description: `Sends the long and detailed walkthrough of marvel${i}, with every step and every tip it has.`,
          keywords: [`keyflow${i}`, `other${i}`],
        })),
      } as never);
    };
    const big = shortlist(huge(800), ['keyflow7']);
    // The default depends on what every turn carries (persona, pinned tools), not on the menu.
    const persona = testConfig().persona.length / 4;
    expect(big.maxToolTokens).toBeGreaterThan(cheaperMenuThreshold({ personaTokens: persona, pinnedTokens: 0 }));
    expect(big.maxToolTokens).toBeLessThan(cheaperMenuThreshold({ personaTokens: persona, pinnedTokens: 50 }));
    expect(big.fullTokens).toBeGreaterThan(big.maxToolTokens);
    expect(big.active).toBe(true);
    expect(big.resources.send_media).toEqual(['flow:flow7']);
    // What it kept is a small part of the menu: the tools whose words matched and the one flow.
    expect(big.keptTokens).toBeLessThan(big.fullTokens * 0.2);
    // A tenant with a tenth of those flows stays under its own default: the full menu.
    const small = shortlist(huge(80), ['keyflow7']);
    expect(small.maxToolTokens).toBe(big.maxToolTokens);
    expect(small.active).toBe(false);
    expect(small.keptTokens).toBe(small.fullTokens);
  });

  it('a pinned tool is offered on a turn whose words match nothing of it; an unpinned unmatched tool is dropped', () => {
    const config = largeConfig(100);
    const list = shortlist(config, ['xylophone quartz']);
    expect(list.active).toBe(true);
    expect(list.tools).toEqual(['lookup_contact', 'reply']);
    expect(list.dropped).toContain('tool search_faq: no word of the message or recent history matches it');
    expect(list.dropped).toContain('tool send_media: no word of the message or recent history matches it');
    const built = buildTurnTools({ config, inbound, staging: new TurnStaging('turn_sl') }, config.toolOrder, list);
    expect(built.order).toEqual(['lookup_contact', 'reply']);
    // Without the pin the same words keep only reply.
    const unpinned = testConfig({
      ...config,
      manifest: { ...config.manifest, lookup_contact: { effect: 'read' } },
    } as never);
    expect(shortlist(unpinned, ['xylophone quartz']).tools).toEqual(['reply']);
  });

  it('keeps, within a staging tool, only the resources the words (message or history) match, and says why the rest went', () => {
    const config = largeConfig(100);
    const list = shortlist(config, ['can you show me marvel7?', 'earlier: I like hobby3']);
    expect(list.tools).toEqual(['lookup_contact', 'reply', 'send_media', 'tag_contact']);
    expect(list.resources).toEqual({ send_media: ['flow:flow7'], tag_contact: ['tag:tag3'] });
    expect(list.dropped).toContain('flow:flow8 (tool send_media): no word of the message or recent history matches it');
    expect(list.dropped).toContain('tool record_choice: no word of the message or recent history matches it');
    const built = buildTurnTools({ config, inbound, staging: new TurnStaging('turn_sl') }, config.toolOrder, list);
    expect(built.tools['send_media']!.description).toContain('flow7');
    expect(built.tools['send_media']!.description).not.toContain('flow8');
  });

  it('a keyword counts, and a tool matched by its own words keeps its whole scope', () => {
    const config = largeConfig(100);
    expect(shortlist(config, ['keyflow12 please']).resources).toEqual({ send_media: ['flow:flow12'] });
    const byTool = shortlist(config, ['please record my choice']);
    expect(byTool.tools).toContain('record_choice');
    expect(byTool.resources['record_choice']).toBeUndefined();
  });

  it('is stable: the same words give byte-identical tool lists in canonical order, whatever the order of the config', () => {
    const config = largeConfig(100);
    const texts = ['marvel7 and hobby3 and gadget2'];
    const first = toolBytes(config, texts);
    expect(toolBytes(config, texts)).toBe(first);
    const reordered = testConfig({ ...config, tools: [...config.tools].reverse() } as never);
    expect(toolBytes(reordered, texts)).toBe(first);
    expect(JSON.parse(first).map((e: [string, string]) => e[0])).toEqual([
      'lookup_contact',
      'record_choice',
      'reply',
      'send_media',
      'tag_contact',
    ]);
  });

  it('FAQ entries are not in the menu (search_faq returns at most 3 hits when called): 50 entries cost the tool list nothing, so there is nothing in it to trim', () => {
    const few = largeConfig(100);
    const many = testConfig({
      ...few,
      faq: Array.from({ length: 50 }, (_, i) => ({
        id: `q${i}`,
        question: `Do you offer lesson${i}?`,
        answer: `Yes, lesson${i} runs weekly.`,
      })),
    } as never);
    expect(shortlist(many, ['x']).fullTokens).toBe(shortlist(few, ['x']).fullTokens);
    const all = (config: TenantConfig) =>
      buildTurnTools({ config, inbound, staging: new TurnStaging('turn_sl') }, config.toolOrder);
    expect(JSON.stringify(all(many).tools['search_faq'])).toBe(JSON.stringify(all(few).tools['search_faq']));
    // The entries' questions still make the FAQ tool relevant: a word of one keeps it on the list.
    expect(shortlist(many, ['is lesson17 on?']).tools).toContain('search_faq');
    expect(shortlist(few, ['is lesson17 on?']).tools).not.toContain('search_faq');
  });
});

import { describe, expect, it } from 'vitest';
import type { CaseResult, TurnObservation } from './run-case.js';
import { compareShortlist, renderShortlistComparison } from './shortlist-report.js';

const turn = (
  promptTokens: number,
  modelCalls: number,
  shortlist?: { widened: boolean; keptTokens?: number },
): TurnObservation =>
  ({
    modelCalls,
    promptTokens,
    record: shortlist
      ? {
          shortlist: {
            offered: ['reply'],
            resources: {},
            dropped: [],
            fullTokens: 1000,
            ...(shortlist.keptTokens !== undefined ? { keptTokens: shortlist.keptTokens } : {}),
            widened: shortlist.widened,
          },
        }
      : {},
  }) as unknown as TurnObservation;
const result = (name: string, turns: TurnObservation[], over: Partial<CaseResult> = {}): CaseResult =>
  ({
    name,
    file: `${name}.json`,
    variant: 'product',
    repeat: 0,
    hedging: true,
    shortlist: true,
    tenantId: 't',
    passed: true,
    failures: [],
    turns,
    ms: 1,
    promptReuse: [],
    ...over,
  }) as CaseResult;

describe('compareShortlist', () => {
  const on = [
    result(
      'big',
      [turn(1000, 1, { widened: false, keptTokens: 100 }), turn(3000, 2, { widened: true, keptTokens: 300 })],
      {
        promptReuse: [0.1, 0.3],
      },
    ),
    // Never shortlisted (a demo-sized menu): left out of the comparison.
    result('small', [turn(500, 1)]),
  ];
  const off = [
    result('big', [turn(3000, 1), turn(6000, 2)], { shortlist: false, passed: false, promptReuse: [0.9, 1] }),
    result('small', [turn(500, 1)], { shortlist: false }),
  ];

  it('pairs the cases the shortlist touched with their full-menu run: tokens per turn and request, prefix shares, passes', () => {
    const c = compareShortlist(on, off);
    expect(c.perCase.map((p) => p.name)).toEqual(['big']);
    expect(c.on).toMatchObject({
      cases: 1,
      passed: 1,
      turns: 2,
      shortlistedTurns: 2,
      widenedTurns: 1,
      requests: 3,
      promptTokens: 4000,
      prefixShares: [0.1, 0.3],
    });
    expect(c.off).toMatchObject({
      cases: 1,
      passed: 0,
      turns: 2,
      shortlistedTurns: 0,
      widenedTurns: 0,
      requests: 3,
      promptTokens: 9000,
    });
    expect(c.perCase[0]).toMatchObject({ tokensOn: 2000, tokensOff: 4500, passedOn: true, passedOff: false });
    expect(c.perCase[0]!.shareOn).toBeCloseTo(0.2);
    expect(c.perCase[0]!.shareOff).toBeCloseTo(0.95);
    // Kept ÷ full menu over the shortlisted turns: (100 + 300) / 2 / 1000.
    expect(c.on.keptShare).toBeCloseTo(0.2);
    expect(c.off.keptShare).toBeNaN();
  });

  it('renders both rows and the saving', () => {
    const text = renderShortlistComparison(compareShortlist(on, off));
    expect(text).toMatch(/off\s+0\/1\s+0\/2\s+0\s+4500\s+3000\s+95\.0 % \(n=2\)/);
    expect(text).toMatch(/on\s+1\/1\s+2\/2\s+1\s+2000\s+1333\s+20\.0 % \(n=2\)/);
    expect(text).toContain('9000 off, 4000 on (55.6 % fewer with the shortlist)');
    expect(text).toContain("kept 20.0 % of the menu's estimated tokens");
    expect(text).toMatch(
      /cheaper with a warm cache: the (full menu|shortlist) \(\d+ against \d+ effective input tokens a turn\)/,
    );
  });

  it('says so when no case was shortlisted', () => {
    expect(renderShortlistComparison(compareShortlist([on[1]!], [off[1]!]))).toContain('no case was shortlisted');
  });
});

describe("the default menu (tools/menu-cost.ts) against the eval's measurement", () => {
  it('the large-tenant cases, with no size of their own, get the full menu: the side the eval measured cheaper with a warm cache (1,061 against 1,549 tokens a turn)', async () => {
    const { resolve } = await import('node:path');
    const { loadCases, deepMerge } = await import('./case-format.js');
    const { demoTenantConfig } = await import('../dev/demo-tenant.js');
    const { TenantConfigSchema } = await import('../core/tenant/tenant-config.js');
    const { shortlist } = await import('../tools/shortlist.js');
    const cases = (await loadCases(resolve(import.meta.dirname, 'cases'))).filter((c) =>
      c.file.includes('large-tenant'),
    );
    expect(cases.length).toBeGreaterThan(5);
    for (const c of cases) {
      const overrides = { ...(c.tenant.overrides as Record<string, unknown>) };
      // The cases set a small size of their own to exercise the shortlist; the default is what is checked.
      delete overrides.shortlist;
      const config = TenantConfigSchema.parse(deepMerge(demoTenantConfig('large'), overrides));
      const list = shortlist(config, ['Do you have a reformer pilates guide?']);
      expect(list.active).toBe(false);
      // Not by a wide margin: a menu about twice as large would be shortlisted.
      expect(list.fullTokens * 2.2).toBeGreaterThan(list.maxToolTokens);
    }
  });
});

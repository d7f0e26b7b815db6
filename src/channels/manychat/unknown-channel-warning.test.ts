import { describe, expect, it } from 'vitest';
import { stageConfig } from '../../../test/support/turn-stage.js';
import { warnUnknownChannel } from './unknown-channel-warning.js';

describe('the unknown-channel warning is written once per tenant config, not once per turn', () => {
  it('many turns under one config object log one line, naming the tenant', () => {
    const config = stageConfig();
    const lines: string[] = [];
    for (let i = 0; i < 5; i++) warnUnknownChannel(config, (l) => lines.push(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`tenant ${config.tenantId}`);
    expect(lines[0]).toContain('cannot be told');
  });

  it("two tenants are each told, and one tenant's warning never stands for the other's", () => {
    const [a, b] = [stageConfig(), stageConfig()];
    const lines: string[] = [];
    const log = (l: string) => lines.push(l);
    expect(warnUnknownChannel(a, log)).toBe(true);
    expect(warnUnknownChannel(b, log)).toBe(true);
    expect(warnUnknownChannel(a, log)).toBe(false);
    expect(lines.map((l) => l.includes(a.tenantId))).toEqual([true, false]);
    expect(lines[1]).toContain(b.tenantId);
  });

  it('a changed config (a new object, as the tenant cache holds after a save) is told again', () => {
    const config = stageConfig();
    const lines: string[] = [];
    warnUnknownChannel(config, (l) => lines.push(l));
    warnUnknownChannel({ ...config, persona: 'changed' }, (l) => lines.push(l));
    expect(lines).toHaveLength(2);
  });
});

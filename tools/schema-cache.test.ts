import { asSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { inboundFor, stageConfig } from '../test/support/turn-stage.js';
import { buildTurnTools } from './registry.js';
import { TurnStaging } from './staging.js';

const toolsFor = (config: ReturnType<typeof stageConfig>) =>
  buildTurnTools({ config, inbound: inboundFor(config, 'hi'), staging: new TurnStaging('t1') }).tools;
const jsonOf = (tool: { inputSchema: unknown }) =>
  asSchema(tool.inputSchema as Parameters<typeof asSchema>[0]).jsonSchema;

describe('tool schemas are built once per tenant config, not once per turn', () => {
  it('two turns under the same config object share each tool input schema (its JSON Schema computed once)', () => {
    const config = stageConfig();
    const [a, b] = [toolsFor(config), toolsFor(config)];
    for (const name of Object.keys(a)) expect(b[name]!.inputSchema).toBe(a[name]!.inputSchema);
  });

  it('a changed config (a new object) gets schemas of its own that follow the change', () => {
    const config = stageConfig();
    const before = toolsFor(config);
    const changed = { ...config, flows: config.flows.filter((f) => f.name !== 'timetable') };
    const after = toolsFor(changed);
    expect(after.send_media!.inputSchema).not.toBe(before.send_media!.inputSchema);
    expect(JSON.stringify(jsonOf(before.send_media!))).toContain('timetable');
    expect(JSON.stringify(jsonOf(after.send_media!))).not.toContain('timetable');
  });

  it("the staged action uses the turn's own staging area, not the first turn's", async () => {
    const config = stageConfig();
    const first = new TurnStaging('t1');
    const second = new TurnStaging('t2');
    buildTurnTools({ config, inbound: inboundFor(config, 'hi'), staging: first });
    const tools = buildTurnTools({ config, inbound: inboundFor(config, 'hi'), staging: second }).tools;
    await tools.send_media!.execute!({ flow: 'brochure' }, { toolCallId: 'c1', messages: [] } as never);
    expect(first.actions).toEqual([]);
    expect(second.actions.map((a) => a.args.flowName)).toEqual(['brochure']);
  });
});

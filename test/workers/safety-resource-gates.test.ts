import { describe, expect, it } from 'vitest';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import type { TenantConfigInput } from '../../core/tenant/tenant-config.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant } from '../support/workers-env.js';
import { tenantApi } from './tenant-api.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

/**
 * A gate binds to the resource it protects. The reproduction: `send_tour` (send_flow,
 * approval: pinned) beside the demo's `send_media` (confirm: never); the model calls
 * send_media{flow: "studio_tour"} — which used to pass ungated and commit.
 */
function withTour(resources?: string[]): Partial<TenantConfigInput> {
  const demo = demoTenantConfig();
  return {
    tools: [...demo.tools!, { name: 'send_tour', kind: 'send_flow', description: 'Send the studio tour video.' }],
    manifest: {
      ...demo.manifest,
      send_tour: { effect: 'write', approval: 'pinned', ...(resources ? { resources } : {}) },
    },
  };
}

async function turn(overrides: Partial<TenantConfigInput>, calls: { tool: string; input: unknown }[], text: string) {
  const { tenantId, secret, adminSecret } = await seedTenant(overrides);
  const model = scriptedModel([{ calls, reply: reply('On its way once it is checked.') }, { reply: reply('Sorry.') }]);
  const res = await appWith(model).post(tenantId, secret, { contact: { id: await newContact() }, text });
  const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
  return { tenantId, adminSecret, model, record, entry: await outboxEntry(tenantId, record.turnId) };
}

describe('a gate binds to the flow, tag or field it protects, whatever tool stages it', () => {
  it('send_media{studio_tour} waits for the approval send_tour puts on that flow: nothing committed, one approval row', async () => {
    const { tenantId, adminSecret, record, entry } = await turn(
      withTour(['flow:studio_tour']),
      [{ tool: 'send_media', input: { flow: 'studio_tour' } }],
      'send me the studio tour video',
    );
    expect(record.staged).toMatchObject([
      { tool: 'send_media', kind: 'send_flow', gate: 'approval', args: { flowName: 'studio_tour' } },
    ]);
    expect(record.decision).toBe('pass');
    expect(entry?.actions.some((a) => a.kind === 'send_flow') ?? false).toBe(false);
    const approvals = (await (await tenantApi(tenantId, adminSecret, 'GET', '/approvals')).json()) as {
      approvals: { tool: string; args: string }[];
    };
    expect(approvals.approvals).toMatchObject([{ tool: 'send_media', args: expect.stringContaining('studio_tour') }]);
  });

  it('a flow no gated tool acts on is still sent by the ungated tool', async () => {
    const { record, entry } = await turn(
      withTour(['flow:studio_tour']),
      [{ tool: 'send_media', input: { flow: 'brochure' } }],
      'send me the brochure',
    );
    expect(record.staged).toMatchObject([{ gate: 'none', args: { flowName: 'brochure' } }]);
    expect(entry?.actions.map((a) => a.args.flowName)).toEqual(['brochure']);
  });

  it('a gated tool without `resources` acts on every flow: each flow waits for its approval, through any tool', async () => {
    const { record, entry } = await turn(
      withTour(),
      [{ tool: 'send_media', input: { flow: 'brochure' } }],
      'send me the brochure',
    );
    expect(record.staged).toMatchObject([{ gate: 'approval' }]);
    expect(entry?.actions.some((a) => a.kind === 'send_flow') ?? false).toBe(false);
  });

  it('a tool with `resources` is offered and may stage only those: anything else is refused, naming what it may send', async () => {
    const { record, model } = await turn(
      withTour(['flow:studio_tour']),
      [{ tool: 'send_tour', input: { flow: 'brochure' } }],
      'send the brochure',
    );
    const offered = model.doGenerateCalls[0]?.tools?.find((t) => t.name === 'send_tour');
    expect(JSON.stringify(offered)).toContain('studio_tour');
    expect(JSON.stringify(offered)).not.toContain('brochure');
    expect(record.staged).toEqual([]);
    expect(JSON.stringify(record.steps[0]?.toolResults)).toContain('Allowed flows: studio_tour.');
  });

  it('gates bind per kind: an approval on removing a tag does not gate adding it', async () => {
    const { record } = await turn(
      {},
      [{ tool: 'tag_contact', input: { tag: 'interested' } }],
      "I'm interested in classes",
    );
    expect(record.staged).toMatchObject([{ kind: 'add_tag', gate: 'none' }]);
  });

  it('`resources` naming something the tool cannot act on is refused when the config is saved', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const config = { ...demoTenantConfig(tenantId), ...withTour(['flow:pricing']) };
    const res = await tenantApi(tenantId, adminSecret, 'PUT', '/config', config);
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('tool \\"send_tour\\": resources names \\"flow:pricing\\"');
  });
});

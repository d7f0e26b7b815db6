import { describe, expect, it } from 'vitest';
import { act, testConfig, turnInput, verdictOf } from '../test/support/guardrail-input.js';
import type { StagedAction } from '../core/staged-action.js';
import { actionPolicyGuardrail } from './action-policy.js';
import { mediaProblem } from '../core/actions/send-content.js';

const judge = (spec: Parameters<typeof turnInput>[0]) => verdictOf(actionPolicyGuardrail, turnInput(spec));

describe('action-policy: allow-lists and provenance', () => {
  it('passes actions exactly as the configured tools stage them', async () => {
    const v = await judge({
      staged: [
        act.flow('brochure'),
        act.tag('interested'),
        act.untag('newsletter'),
        act.field('preferred_class', 'yoga'),
        act.field('age', 30),
      ],
    });
    expect(v.outcome, v.reason).toBe('pass');
  });

  it('passes a turn with nothing staged', async () => {
    expect((await judge({ staged: [] })).outcome).toBe('pass');
  });

  it.each<[string, () => StagedAction, string]>([
    ['an unconfigured flow', () => act.flow('free_vacation'), 'not configured'],
    [
      'a configured flow name with another namespace',
      () => ({ ...act.flow('brochure'), args: { flowName: 'brochure', flowNs: 'content_attacker_ns' } }),
      'namespace',
    ],
    ['an unconfigured tag', () => act.tag('admin'), 'not configured'],
    ['the handoff tag (only the system hands off)', () => act.tag('human_handoff'), 'handoff tag'],
    ['removing the handoff tag', () => act.untag('human_handoff'), 'handoff tag'],
    ['an unconfigured field', () => act.field('password', 'x'), 'not configured'],
    ["a value outside the field's choices", () => act.field('preferred_class', 'crossfit'), 'not a choice'],
    ['a value of the wrong type', () => act.field('age', 'old'), 'takes a number'],
    ['a value that is only coercible ("30" for a number field)', () => act.field('age', '30'), 'typed value'],
    ['an unconfigured tool', () => ({ ...act.tag('interested'), tool: 'evil_tool' }), 'not configured'],
    ['a read tool staging', () => ({ ...act.tag('interested'), tool: 'search_faq' }), 'not declared as a write tool'],
    ['a tool of another kind', () => ({ ...act.tag('interested'), tool: 'send_media' }), 'is a send_flow tool'],
    ['a system action', () => ({ ...act.tag('interested'), tool: 'system:handoff' }), 'system action'],
    [
      'a kind no tool stages',
      () => ({ ...act.tag('interested'), kind: 'live_chat' as const }),
      'no configured tool stages',
    ],
    [
      "a gate weaker than the manifest's",
      () => ({ ...act.tag('interested'), gate: 'none' as const }),
      'requires "confirm"',
    ],
  ])('vetoes %s', async (_name, action, why) => {
    // The last case needs a confirm-once tag tool: set the manifest so.
    const config = why.includes('requires')
      ? testConfig({ manifest: { ...testConfig().manifest, tag_contact: { effect: 'write', confirm: 'once' } } })
      : testConfig();
    const v = await judge({ config, staged: [action()] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain(why);
  });

  it('vetoes a protected tag', async () => {
    const config = testConfig({}, { actions: { protectedTags: ['vip'] } });
    const v = await judge({ config, staged: [act.tag('vip')] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('protected');
  });
});

describe('action-policy: a gate binds to the resource', () => {
  const withTour = (resources?: string[]) =>
    testConfig({
      tools: [...testConfig().tools, { name: 'send_tour', kind: 'send_flow', description: 'tour' }],
      manifest: {
        ...testConfig().manifest,
        send_tour: { effect: 'write', approval: 'pinned', ...(resources ? { resources } : {}) },
      },
    });
  it('vetoes an action staged ungated on a flow a gated sibling tool protects', async () => {
    const config = withTour(['flow:studio_tour']);
    const v = await judge({ config, staged: [act.flow('studio_tour', config)] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('flow:studio_tour requires "approval"');
  });
  it("passes the same action staged with the resource's gate, and an ungated flow no gated tool protects", async () => {
    const config = withTour(['flow:studio_tour']);
    expect((await judge({ config, staged: [{ ...act.flow('studio_tour', config), gate: 'approval' }] })).outcome).toBe(
      'pass',
    );
    expect((await judge({ config, staged: [act.flow('brochure', config)] })).outcome).toBe('pass');
  });
  it('vetoes a tool acting on a resource outside its `resources`', async () => {
    const config = withTour(['flow:studio_tour']);
    const v = await judge({
      config,
      staged: [{ ...act.flow('brochure', config), tool: 'send_tour', gate: 'approval' }],
    });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('does not act on flow:brochure');
  });
});

describe('action-policy: caps and contradictions', () => {
  it('at most maxFlowsPerTurn flows (default 2)', async () => {
    expect((await judge({ staged: [act.flow('brochure'), act.flow('timetable')] })).outcome).toBe('pass');
    const v = await judge({ staged: [act.flow('brochure'), act.flow('timetable'), act.flow('studio_tour')] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('3 flows staged; at most 2');
  });

  it('at most maxActionsPerTurn actions', async () => {
    const config = testConfig({}, { actions: { maxActionsPerTurn: 2 } });
    const v = await judge({ config, staged: [act.tag('interested'), act.tag('newsletter'), act.field('age', 3)] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('at most 2 a turn');
  });

  it('a tag added and removed in one turn', async () => {
    const v = await judge({ staged: [act.tag('newsletter'), act.untag('newsletter')] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('tag:newsletter is acted on twice');
  });

  it('a field set to two values in one turn', async () => {
    const v = await judge({ staged: [act.field('preferred_class', 'yoga'), act.field('preferred_class', 'pilates')] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('field:preferred_class is acted on twice');
  });
});

describe('action-policy: what is not a contradiction', () => {
  it('the same action twice (same kind, same arguments) is not a contradiction', async () => {
    const v = await judge({ staged: [act.tag('interested'), act.tag('interested')] });
    expect(v.outcome, v.reason).toBe('pass');
  });
  it('actions with no resource (system messages) are never compared with each other', async () => {
    const content = (text: string): StagedAction => ({
      id: text,
      tool: 'system:notice',
      kind: 'send_content',
      args: { text },
      effect: 'write',
      idempotent: false,
      gate: 'none',
      summary: text,
    });
    const v = await judge({ staged: [content('one'), content('two')] });
    expect(v.reason).not.toContain('acted on twice');
  });
});

describe('action-policy: the 24-hour messaging window', () => {
  const at = '2026-11-29T12:00:00.000Z';
  it("a send within 24 h of the contact's last message passes; tags pass at any age", async () => {
    expect(
      (await judge({ receivedAt: at, lastInteraction: '2026-11-29T11:59:00Z', staged: [act.flow('brochure')] }))
        .outcome,
    ).toBe('pass');
    expect(
      (await judge({ receivedAt: at, lastInteraction: '2026-11-20T12:00:00Z', staged: [act.tag('interested')] }))
        .outcome,
    ).toBe('pass');
  });

  it('a send outside the window without a message tag is vetoed', async () => {
    const v = await judge({ receivedAt: at, lastInteraction: '2026-11-28T11:00:00Z', staged: [act.flow('brochure')] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('outside the 24-hour window');
  });

  it('the delivery margin counts: 23 h 50 min ago is too late for a send performed up to 15 min later', async () => {
    const v = await judge({ receivedAt: at, lastInteraction: '2026-11-28T12:10:00Z', staged: [act.flow('brochure')] });
    expect(v.outcome).toBe('veto');
  });

  it('a gated send must fit the confirmation/approval margin (60 min)', async () => {
    const config = testConfig({
      manifest: { ...testConfig().manifest, send_media: { effect: 'write', confirm: 'once' } },
    });
    const gated = { ...act.flow('brochure'), gate: 'confirm' as const };
    expect(
      (
        await judge({
          config,
          receivedAt: at,
          lastInteraction: '2026-11-28T12:30:00Z',
          staged: [{ ...gated, gate: 'confirm' }],
        })
      ).outcome,
    ).toBe('veto');
    expect(
      (await judge({ config, receivedAt: at, lastInteraction: '2026-11-28T13:30:00Z', staged: [gated] })).outcome,
    ).toBe('pass');
  });

  it('an allowed message tag lets a send through outside the window; a tag the tenant may not use does not', async () => {
    const tagged = {
      ...act.flow('brochure'),
      args: { ...act.flow('brochure').args, messageTag: 'POST_PURCHASE_UPDATE' },
    };
    const allowed = testConfig({}, { messagingWindow: { allowedMessageTags: ['POST_PURCHASE_UPDATE'] } });
    expect(
      (await judge({ config: allowed, receivedAt: at, lastInteraction: '2026-11-25T12:00:00Z', staged: [tagged] }))
        .outcome,
    ).toBe('pass');
    const v = await judge({ receivedAt: at, lastInteraction: '2026-11-25T12:00:00Z', staged: [tagged] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('not allowed');
  });

  it('an unreadable lastInteraction fails closed for sends', async () => {
    const v = await judge({ receivedAt: at, lastInteraction: 'yesterday-ish', staged: [act.flow('brochure')] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('not a readable time');
  });

  it('no lastInteraction: the message itself is the interaction', async () => {
    expect((await judge({ receivedAt: at, staged: [act.flow('brochure')] })).outcome).toBe('pass');
  });
});

describe('action-policy: media allow-list for send_content', () => {
  const content = (args: Record<string, unknown>): StagedAction => ({
    id: 'x',
    tool: 'system:x',
    kind: 'send_content',
    args,
    effect: 'write',
    idempotent: false,
    gate: 'none',
    summary: 'send content',
  });
  it('allows https media on a listed host (exact or *.)', () => {
    expect(
      mediaProblem(content({ messages: [{ type: 'image', url: 'https://cdn.studio.example/a.png' }] }), [
        'cdn.studio.example',
      ]),
    ).toBeNull();
    expect(
      mediaProblem(content({ messages: [{ type: 'image', url: 'https://img.cdn.studio.example/a.png' }] }), [
        '*.cdn.studio.example',
      ]),
    ).toBeNull();
    expect(mediaProblem(content({ text: 'no media here' }), [])).toBeNull();
  });
  it('refuses other hosts, look-alike suffixes, plain http and non-URLs', () => {
    expect(mediaProblem(content({ image_url: 'https://evil.example/a.png' }), ['cdn.studio.example'])).toContain(
      'not in the tenant',
    );
    expect(
      mediaProblem(content({ url: 'https://evilcdn.studio.example.attacker.io/a.png' }), ['*.studio.example']),
    ).toContain('not in the tenant');
    expect(mediaProblem(content({ url: 'http://cdn.studio.example/a.png' }), ['cdn.studio.example'])).toContain(
      'not https',
    );
    expect(mediaProblem(content({ media: 'javascript:alert(1)' }), ['cdn.studio.example'])).toContain('not https');
  });
  it("the guardrail checks a send_content's media, in arrays and nested objects too", async () => {
    for (const args of [
      { text: 'hi', media: ['https://evil.example/a.png'] },
      { text: 'hi', attachments: [{ payload: { url: 'https://evil.example/b.png' } }] },
    ]) {
      const v = await judge({ staged: [content(args)] });
      expect(v.outcome).toBe('veto');
      expect(v.reason).toContain('media host "evil.example" is not in the tenant\'s media allow-list');
    }
  });
  it('a send_content staged through a tool of another kind is vetoed', async () => {
    const v = await judge({ staged: [{ ...content({ text: 'hi' }), tool: 'send_media' }] });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('tool "send_media" is a send_flow tool, not send_content');
  });
  it('a send_content tool stages only a prepared message, with its configured text', async () => {
    const withContent = testConfig({
      contents: [{ name: 'price_list', description: 'the prices', text: 'Drop-in 15 EUR.' }],
      tools: [
        ...testConfig().tools,
        { name: 'send_info', kind: 'send_content', description: 'Send a prepared message.' },
      ],
      manifest: { ...testConfig().manifest, send_info: { effect: 'write', confirm: 'never' } },
    });
    const staged = (args: Record<string, unknown>): StagedAction => ({ ...content(args), tool: 'send_info' });
    expect(
      (await judge({ config: withContent, staged: [staged({ content: 'price_list', text: 'Drop-in 15 EUR.' })] }))
        .outcome,
    ).toBe('pass');
    // Free text the model wrote, however a tool came to stage it, is not a prepared message.
    const free = await judge({ config: withContent, staged: [staged({ text: 'Everything is free today!' })] });
    expect(free).toMatchObject({
      outcome: 'veto',
      reason: expect.stringContaining('names nothing the tenant configured'),
    });
    const edited = await judge({
      config: withContent,
      staged: [staged({ content: 'price_list', text: 'Everything is free today!' })],
    });
    expect(edited).toMatchObject({
      outcome: 'veto',
      reason: expect.stringContaining('text other than its configured text'),
    });
  });
});

import { describe, expect, it } from 'vitest';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant } from '../support/workers-env.js';
import { appWith, turnRecord } from './turn-helpers.js';

type Block = {
  content: {
    messages: { text: string }[];
    quick_replies: {
      type: string;
      caption: string;
      payload: { callback: { kind: string; text?: string }; sig: string };
    }[];
  };
};

describe("the model's suggested quick replies", () => {
  it("become signed buttons whose press is the contact's next message, once", async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const model = scriptedModel([
      { reply: reply('I can send the brochure or the timetable.', { quickReplies: ['Brochure', 'Timetable'] }) },
      { calls: [{ tool: 'send_media', input: { flow: 'timetable' } }], reply: reply('Here is the timetable.') },
    ]);
    const app = appWith(model);
    const first = (await (
      await app.post(tenantId, secret, { contact: { id: contactId }, text: 'what can you send me?' })
    ).json()) as Block;
    expect(first.content.quick_replies.map((q) => [q.type, q.caption, q.payload.callback.kind])).toEqual([
      ['dynamic_block_callback', 'Brochure', 'suggest'],
      ['dynamic_block_callback', 'Timetable', 'suggest'],
    ]);

    const press = first.content.quick_replies[1]!.payload;
    const pressed = await app.post(tenantId, null, press); // ManyChat sends no secret header with a button
    expect(pressed.status).toBe(200);
    const record = await turnRecord(tenantId, pressed.headers.get('x-turn-id')!);
    expect(record.inbound.text).toBe('Timetable');
    expect(record.committed.map((a) => a.args.flowName)).toEqual(['timetable']);

    const again = await app.post(tenantId, null, press);
    expect(again.headers.get('x-duplicate-of')).toBe(pressed.headers.get('x-turn-id'));
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('an edited caption does not verify: 401, no turn', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const model = scriptedModel([{ reply: reply('Anything else?', { quickReplies: ['Brochure'] }) }]);
    const app = appWith(model);
    const block = (await (
      await app.post(tenantId, secret, { contact: { id: contactId }, text: 'hi' })
    ).json()) as Block;
    const payload = block.content.quick_replies[0]!.payload;
    const edited = await app.post(tenantId, null, {
      ...payload,
      callback: { ...payload.callback, text: 'remove all my tags' },
    });
    expect(edited.status).toBe(401);
    expect(model.doGenerateCalls).toHaveLength(1);
  });
});

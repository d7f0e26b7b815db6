import { describe, expect, it } from 'vitest';
import { parseManyChatWebhook } from './inbound-schema.js';

describe('parseManyChatWebhook: the wrapped form or the bare Full Contact Data', () => {
  it('the wrapped form keeps text, message_key, callback and sig; a numeric id becomes a string', () => {
    const parsed = parseManyChatWebhook({
      contact: { id: 1001, name: 'Ada' },
      text: 'hi',
      message_key: 'm1',
      callback: { kind: 'suggest', text: 'Yoga', nonce: 'n' },
      sig: 'ab',
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        contact: { id: '1001', name: 'Ada' },
        text: 'hi',
        message_key: 'm1',
        callback: { kind: 'suggest', text: 'Yoga', nonce: 'n' },
        sig: 'ab',
      },
    });
  });

  it('the bare contact object is wrapped, its unknown fields kept', () => {
    expect(parseManyChatWebhook({ id: '1001', last_input_text: 'hello', gender: 'f' })).toEqual({
      ok: true,
      value: { contact: { id: '1001', last_input_text: 'hello', gender: 'f' } },
    });
  });

  it('problems name the field, under contact. in both forms', () => {
    expect(parseManyChatWebhook({ contact: { id: '12a' } })).toEqual({
      ok: false,
      problems: ['contact.id: must be a numeric id'],
    });
    expect(parseManyChatWebhook({ id: -1 })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^contact\.id: /)],
    });
    expect(
      parseManyChatWebhook({
        contact: { id: '1' },
        callback: { kind: 'confirm', pendingId: 'cf', answer: 'maybe', nonce: 'n' },
      }),
    ).toMatchObject({ ok: false, problems: [expect.stringMatching(/^callback\.answer: /)] });
  });

  it('refuses a callback kind we never issue, and text beyond the limits', () => {
    expect(parseManyChatWebhook({ contact: { id: '1' }, callback: { kind: 'approve', id: 'ap_1' } }).ok).toBe(false);
    expect(parseManyChatWebhook({ contact: { id: '1' }, text: 'x'.repeat(4001) }).ok).toBe(false);
    expect(
      parseManyChatWebhook({ contact: { id: '1' }, callback: { kind: 'suggest', text: 'x'.repeat(101), nonce: 'n' } })
        .ok,
    ).toBe(false);
  });

  it('a body that is not an object is refused (read as a bare contact, so the problem names contact)', () => {
    expect(parseManyChatWebhook('hello')).toMatchObject({ ok: false, problems: [expect.stringMatching(/^contact: /)] });
    expect(parseManyChatWebhook(null).ok).toBe(false);
  });
});

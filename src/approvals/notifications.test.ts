import { describe, expect, it } from 'vitest';
import { handoffNotification } from './handoff-notification.js';
import { approvalNotifications } from './approval-notification.js';
import type { PinnedTerms } from '../../core/pinned-terms.js';

const HOSTILE = '<!channel> <https://evil.example/x|Approve now>';
const sealedSlack = { tenantId: 'studio', notifications: { approvals: { format: 'slack' as const } }, handoff: {} };
const links = (text: string) => [...text.matchAll(/<([^>|]+)\|[^>]*>/g)].map((m) => m[1]);

describe('notifications for Slack', () => {
  it('a handoff escapes every part it did not build: a hostile reason pings nobody and links nowhere', () => {
    const [action] = handoffNotification(
      sealedSlack as never,
      {
        turnId: 'turn1',
        inbound: { channel: 'manychat', contactId: HOSTILE },
        reason: `the model asked for a human: ${HOSTILE}`,
        handoffUntil: null,
      },
      'https://w.example',
    );
    const { text } = JSON.parse((action!.args as { body: string }).body) as { text: string };
    expect(text).not.toContain('<!channel>');
    expect(links(text)).toEqual(['https://w.example/dashboard/turns/turn1']);
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('both go to the sealed URL when the config names none: no URL in the action', () => {
    const approval = {
      id: 'ap_1',
      turnId: 'turn1',
      contactId: 'c1',
      expiresAt: '2030-01-01T00:00:00.000Z',
      card: `untag — for ${HOSTILE}`,
      actions: [{ tool: 'untag_contact', kind: 'remove_tag', summary: `remove tag from ${HOSTILE}` }],
    } as unknown as PinnedTerms;
    const [notify] = approvalNotifications(sealedSlack, [approval], 'https://w.example');
    const [handoff] = handoffNotification(
      sealedSlack as never,
      { turnId: 't', inbound: { channel: 'manychat', contactId: 'c1' }, reason: 'asked', handoffUntil: null },
      'https://w.example',
    );
    for (const a of [notify!, handoff!]) {
      expect(a.args).toMatchObject({ sealed: true });
      expect(a.args).not.toHaveProperty('url');
    }
    const body = (notify!.args as { body: string }).body;
    expect(body).not.toContain('evil.example');
    expect(links((JSON.parse(body) as { text: string }).text)).toEqual([
      'https://w.example/dashboard/approvals/ap_1/confirm',
    ]);
  });
});

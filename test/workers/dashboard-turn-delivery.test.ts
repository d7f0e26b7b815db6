import { describe, expect, it } from 'vitest';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { deadLetterFor } from '../../outbox/dead-letters.js';
import { claimAction, markDead, markDone, markUnknown, releaseClaim } from '../../outbox/ledger.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { newContact, seedTenant, session, uniqueId } from '../support/workers-env.js';
import { appWith, outboxEntry } from './turn-helpers.js';

/** The Delivery cell of a turn's row in the Turns list, as text ("1 performed · 1 dead"), or null when the row is absent. */
function deliveryCell(html: string, turnId: string): string | null {
  const row = new RegExp(`<tr><td><a href="/dashboard/turns/${turnId}">[\\s\\S]*?</tr>`).exec(html)?.[0];
  if (!row) return null;
  const cells = [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1]!);
  // Time, Contact, Channel, Message, Decision, Delivery, …
  return cells[5]!.replace(/<[^>]+>/g, '').trim();
}

describe('Turns list: delivery column and the "did not arrive" filter', () => {
  it('shows per turn what the ledger holds, and the filter keeps only turns with a dead, unknown or retrying action', async () => {
    const t = await seedTenant();
    const password = `pw-${uniqueId('p')}`;
    await setDashboardUser(session(), t.tenantId, 'owner', password);
    const contactId = await newContact();
    const model = scriptedModel([
      {
        calls: [
          { tool: 'send_media', input: { flow: 'brochure' } },
          { tool: 'send_media', input: { flow: 'timetable' } },
          { tool: 'tag_contact', input: { tag: 'interested' } },
        ],
        reply: reply('Sure.'),
      },
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Sure.') },
      { calls: [{ tool: 'send_media', input: { flow: 'timetable' } }], reply: reply('Here it is.') },
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here it is.') },
    ]);
    const app = appWith(model);
    const post = async (text: string) =>
      (await app.post(t.tenantId, t.secret, { contact: { id: contactId }, text })).headers.get('x-turn-id')!;
    const mixed = await post('I am interested: send me the brochure and the timetable');
    const lost = await post('The brochure again please');
    const arrived = await post('The timetable please');
    const waiting = await post('And the brochure once more');
    const entry = (await outboxEntry(t.tenantId, mixed))!;
    expect(entry.actions).toHaveLength(3);
    const [performed, dead, retrying] = entry.actions as [
      (typeof entry.actions)[0],
      (typeof entry.actions)[0],
      (typeof entry.actions)[0],
    ];
    const ref = (turnId: string) => ({ session: session(), tenantId: t.tenantId, turnId });
    const now = new Date();
    for (const a of entry.actions) expect((await claimAction(ref(mixed), a.id, now)).applied).toBe(true);
    await markDone(ref(mixed), performed.id, now);
    await markDead(ref(mixed), dead.id, now, 'refused', deadLetterFor(entry, dead, 'dead', 'refused', now));
    await releaseClaim(ref(mixed), retrying.id, now, 'ManyChat 503');
    const lostEntry = (await outboxEntry(t.tenantId, lost))!;
    await claimAction(ref(lost), lostEntry.actions[0]!.id, now);
    await markUnknown(
      ref(lost),
      lostEntry.actions[0]!.id,
      now,
      'no answer',
      deadLetterFor(lostEntry, lostEntry.actions[0]!, 'unknown', 'no answer', now),
    );
    const arrivedEntry = (await outboxEntry(t.tenantId, arrived))!;
    await claimAction(ref(arrived), arrivedEntry.actions[0]!.id, now);
    await markDone(ref(arrived), arrivedEntry.actions[0]!.id, now);
    // `waiting`: committed, never attempted (pending) — not yet a failure.

    const client = new DashboardClient();
    expect((await client.login(t.tenantId, 'owner', password)).status).toBe(303);
    const all = (await client.page('/dashboard/turns')).html;
    expect(all).toContain('<th scope="col">Delivery</th>');
    expect(deliveryCell(all, mixed)).toBe('1 dead · 1 retrying · 1 performed');
    expect(deliveryCell(all, lost)).toBe('1 unknown');
    expect(deliveryCell(all, arrived)).toBe('1 performed');
    expect(deliveryCell(all, waiting)).toBe('1 pending');

    const filtered = (await client.page('/dashboard/turns?delivery=not-arrived')).html;
    expect(filtered).toContain('<option value="not-arrived" selected="">');
    expect(deliveryCell(filtered, mixed)).toBe('1 dead · 1 retrying · 1 performed');
    expect(deliveryCell(filtered, lost)).toBe('1 unknown');
    expect(deliveryCell(filtered, arrived)).toBeNull();
    expect(deliveryCell(filtered, waiting)).toBeNull();

    // Once the retrying action is performed and the dead one re-driven and performed, the turn arrived.
    await claimAction(ref(mixed), retrying.id, now);
    await markDone(ref(mixed), retrying.id, now);
    const after = (await client.page('/dashboard/turns?delivery=not-arrived')).html;
    expect(deliveryCell(after, mixed)).toBe('1 dead · 2 performed');

    // Another tenant's list shows none of it, filtered or not.
    const other = await seedTenant();
    const otherPassword = `pw-${uniqueId('p')}`;
    await setDashboardUser(session(), other.tenantId, 'owner', otherPassword);
    const otherClient = new DashboardClient();
    await otherClient.login(other.tenantId, 'owner', otherPassword);
    const foreign = (await otherClient.page('/dashboard/turns?delivery=not-arrived')).html;
    expect(deliveryCell(foreign, mixed)).toBeNull();
    expect(deliveryCell(foreign, lost)).toBeNull();
  });
});

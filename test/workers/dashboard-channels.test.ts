import { describe, expect, it } from 'vitest';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session, uniqueId } from '../support/workers-env.js';
import { appWith } from './turn-helpers.js';

/**
 * Setup → Channels shows the tenant's pages per channel: which ManyChat channels its contacts have
 * written on (from the tenant's own turn log), and which channels are enabled (the ManyChat API key,
 * Messenger pages). A turn of another tenant is never counted.
 */
async function dashboardTenant(overrides = {}) {
  const t = await seedTenant(overrides);
  const password = `pw-${uniqueId('p')}`;
  await setDashboardUser(session(), t.tenantId, 'owner', password);
  const client = new DashboardClient();
  expect((await client.login(t.tenantId, 'owner', password)).status).toBe(303);
  return { ...t, client };
}

/** The row of the channels table for one channel, as text (tags stripped). */
function rowOf(html: string, channel: string): string {
  const table = /<table id="channel-usage"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
  const row = [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].find((m) => m[1]!.includes(`<th scope="row">${channel}`));
  return (row?.[1] ?? '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

async function turnOn(app: ReturnType<typeof appWith>, t: { tenantId: string; secret: string }, body: unknown) {
  const res = await app.post(t.tenantId, t.secret, body);
  expect(res.status).toBe(200);
  await res.text();
}

describe('Setup → Channels: the channels your contacts use', () => {
  it('counts turns and contacts per ManyChat channel from the tenant turn log; Telegram unused; enabled by the API key', async () => {
    const t = await dashboardTenant();
    const other = await seedTenant();
    const app = appWith(
      scriptedModel(Array.from({ length: 8 }, () => ({ reply: reply('We are open 7:00 to 21:00.') }))),
    );
    const [ig1, ig2, wa, fb, otherTg] = await Promise.all([1, 2, 3, 4, 5].map(() => newContact()));
    const at = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
    // Two Instagram contacts (one writes twice), told by the template's "channel".
    await turnOn(app, t, {
      channel: 'instagram',
      contact: { id: ig1, last_input_text: 'Hours?', ig_last_interaction: at(3) },
    });
    await turnOn(app, t, {
      channel: 'instagram',
      contact: { id: ig1, last_input_text: 'And Sunday?', ig_last_interaction: at(2) },
    });
    await turnOn(app, t, {
      channel: 'instagram',
      contact: { id: ig2, last_input_text: 'Prices?', ig_last_interaction: at(1) },
    });
    // WhatsApp told by Full Contact Data alone; Facebook by nothing at all.
    await turnOn(app, t, { contact: { id: wa, last_input_text: 'Parking?', whatsapp_phone: '+4915100000000' } });
    await turnOn(app, t, { contact: { id: fb, last_input_text: 'Hello', last_interaction: at(5) } });
    // Another tenant's Telegram contact: not this tenant's page.
    await turnOn(app, other, { channel: 'telegram', contact: { id: otherTg, last_input_text: 'Hi' } });

    const { res, html } = await t.client.page('/dashboard/setup/channels');
    expect(res.status).toBe(200);
    expect(html).toContain('Channels your contacts use');
    expect(rowOf(html, 'Instagram')).toMatch(/^Instagram .*Enabled.* 3 turns 2 contacts/);
    expect(rowOf(html, 'Instagram')).toContain('"channel": "instagram"');
    expect(rowOf(html, 'WhatsApp')).toMatch(/Enabled.* 1 turn 1 contact/);
    expect(rowOf(html, 'Facebook Messenger (via ManyChat)')).toMatch(/Enabled.* 1 turn 1 contact/);
    // Facebook keeps ManyChat's message tags past 24 h; Instagram takes nothing automated.
    expect(rowOf(html, 'Facebook Messenger (via ManyChat)')).toContain('after 24 h only with a message tag');
    expect(rowOf(html, 'Instagram')).toContain('nothing automated after 24 h');
    // Telegram: no contact of this tenant has written there (the other tenant's turn is not counted).
    expect(rowOf(html, 'Telegram')).toMatch(/Enabled.* no contact yet/);
    expect(rowOf(html, 'Telegram')).toContain('required on Telegram');
    // Messenger (direct) is not set up for the demo tenant.
    expect(rowOf(html, 'Messenger (direct)')).toMatch(/Not set up/);
    expect(html).toMatch(/from the newest 5 turns/);
    // A contact id never appears on the page.
    for (const id of [ig1, ig2, wa, fb]) expect(html).not.toContain(id);
  });

  it('Messenger pages connected directly are listed as enabled, by name', async () => {
    // A page belongs to one tenant across the store: a fresh id per run.
    const pageId = String(1_000_000_000 + Math.floor(Math.random() * 8_000_000_000));
    const t = await dashboardTenant({
      messenger: { pages: [{ id: pageId, name: 'Studio page' }], handoverAppId: '263902037430900' },
    });
    const { html } = await t.client.page('/dashboard/setup/channels');
    expect(rowOf(html, 'Messenger (direct)')).toMatch(/Enabled: 1 page \(Studio page\)/);
    expect(rowOf(html, 'Instagram')).toMatch(/Enabled.* no contact yet/);
    expect(html).toMatch(/from the newest 0 turns/);
  });
});

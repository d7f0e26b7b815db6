import type { TenantConfigInput } from '../core/tenant/tenant-config.js';
import type { SandboxPage, SandboxSubscriber } from './manychat-sandbox.js';

/** The demo tenant `npm start` seeds, documented in the README. Dev-only credentials. */
export const DEMO_TENANT_ID = 'demo';
export const DEMO_WEBHOOK_SECRET = 'demo-webhook-secret';
/** The demo tenant's admin credential for its JSON API (`Authorization: Bearer …`). */
export const DEMO_ADMIN_SECRET = 'demo-admin-secret';
export const DEMO_PAGE_ID = '1000001';
export const DEMO_MANYCHAT_API_KEY = `${DEMO_PAGE_ID}:demo-manychat-key`;
export const DEMO_CONTACT_ID = '4242';
/** The demo tenant's Messenger Platform secrets (dev only): app secret, page access token, verify token. */
export const DEMO_MESSENGER = {
  appSecret: 'demo-messenger-app-secret',
  pageAccessToken: 'demo-messenger-page-token',
  verifyToken: 'demo-messenger-verify-token',
} as const;
export const DEMO_DASHBOARD_LOGIN = { user: 'demo', password: 'demo-password' } as const;

export const DEMO_FLOWS = [
  {
    name: 'brochure',
    ns: 'content20250101000000_000001',
    description: 'the price brochure (PDF)',
    keywords: ['brochure', 'prices', 'pricing', 'price list'],
  },
  {
    name: 'studio_tour',
    ns: 'content20250101000000_000002',
    description: 'a video tour of the studio',
    keywords: ['video', 'tour'],
  },
  {
    name: 'timetable',
    ns: 'content20250101000000_000003',
    description: "this week's class timetable",
    keywords: ['timetable', 'schedule'],
  },
];

export function demoTenantConfig(tenantId = DEMO_TENANT_ID): TenantConfigInput {
  return {
    version: 1,
    tenantId,
    displayName: 'Sunrise Yoga Studio',
    persona:
      'You are the friendly assistant of Sunrise Yoga Studio. Answer briefly and warmly; offer the brochure, the studio tour video or the timetable when they help.',
    deadlineMs: 8000,
    fallbackReply: 'Sorry, I could not help with that just now. A teammate will read your message.',
    flows: DEMO_FLOWS,
    tags: [
      { name: 'interested', description: 'asked about classes or prices' },
      { name: 'human_handoff', description: 'a human should take over' },
    ],
    fields: [
      {
        name: 'preferred_class',
        label: 'your preferred class',
        type: 'text',
        description: 'the class the contact prefers',
        choices: ['yoga', 'pilates', 'meditation'],
      },
    ],
    faq: [
      {
        id: 'hours',
        question: 'What are your opening hours?',
        answer: 'We are open Monday to Saturday, 7:00 to 21:00.',
      },
      {
        id: 'parking',
        question: 'Is there parking near the studio?',
        answer: 'Yes, free parking behind the building.',
      },
      {
        id: 'first_class',
        question: 'Is the first class free?',
        answer: 'Your first class is free; just book it on the timetable.',
      },
    ],
    tools: [
      {
        name: 'send_media',
        kind: 'send_flow',
        description: "Send the contact one of the studio's flows (brochure, video, timetable).",
      },
      { name: 'tag_contact', kind: 'add_tag', description: 'Tag the contact.' },
      { name: 'untag_contact', kind: 'remove_tag', description: 'Remove a tag from the contact.' },
      { name: 'record_choice', kind: 'set_field', description: "Record the contact's choice in a custom field." },
      { name: 'lookup_contact', kind: 'lookup_contact', description: "Read the contact's name and custom fields." },
      { name: 'search_faq', kind: 'search_faq', description: "Search the studio's FAQ." },
    ],
    manifest: {
      send_media: {
        effect: 'write',
        confirm: 'never',
        guidance: 'Offer media only when it answers what the contact asked.',
      },
      tag_contact: { effect: 'write', confirm: 'never' },
      untag_contact: { effect: 'destructive', undo: 'tag_contact' },
      record_choice: {
        effect: 'write',
        confirm: 'once',
        guidance: 'Record a class preference only when the contact states one.',
      },
      lookup_contact: { effect: 'read' },
      search_faq: { effect: 'read', guidance: 'Search the FAQ before answering questions about the studio.' },
    },
    thresholds: { minConfidence: 0.5, guardrailTimeoutMs: 1000 },
    handoff: { tag: 'human_handoff', reply: 'Thanks! A teammate will pick this up shortly.', silenceMinutes: 60 },
  };
}

/** The ManyChat page the sandbox serves for the demo tenant. */
export function demoSandboxPage(): SandboxPage {
  return {
    pageId: DEMO_PAGE_ID,
    apiKey: DEMO_MANYCHAT_API_KEY,
    tags: [
      { id: 1, name: 'interested' },
      { id: 2, name: 'human_handoff' },
    ],
    customFields: [{ id: 11, name: 'preferred_class', type: 'text' }],
    flows: DEMO_FLOWS.map((f) => f.ns),
  };
}

/** The Messenger page (Send API token) the sandbox serves for the demo tenant: the same page id. */
export function demoMessengerPage(): { pageId: string; accessToken: string } {
  return { pageId: DEMO_PAGE_ID, accessToken: DEMO_MESSENGER.pageAccessToken };
}

export function demoSubscriber(id = DEMO_CONTACT_ID): SandboxSubscriber {
  return { pageId: DEMO_PAGE_ID, id, firstName: 'Ada', lastName: 'Lovelace' };
}

/** The demo ManyChat account's Instagram and WhatsApp contacts (the same page serves every channel, as in ManyChat). */
export const DEMO_INSTAGRAM_CONTACT_ID = '4343';
export const DEMO_WHATSAPP_CONTACT_ID = '4444';
export function demoChannelSubscribers(): SandboxSubscriber[] {
  return [
    {
      pageId: DEMO_PAGE_ID,
      id: DEMO_INSTAGRAM_CONTACT_ID,
      firstName: 'Grace',
      lastName: 'Hopper',
      channel: 'instagram',
    },
    { pageId: DEMO_PAGE_ID, id: DEMO_WHATSAPP_CONTACT_ID, firstName: 'Alan', lastName: 'Turing', channel: 'whatsapp' },
  ];
}

/**
 * The body ManyChat's Dynamic Block sends for a demo contact on a channel: the walkthrough's
 * template (`{"channel": …, "contact": {{Full Contact Data}}}`) with the channel's own fields.
 */
export function demoChannelBody(
  channel: 'instagram' | 'whatsapp',
  text: string,
  at = new Date(),
): Record<string, unknown> {
  const iso = at.toISOString().replace(/\.\d{3}Z$/, '+00:00');
  const id = channel === 'instagram' ? DEMO_INSTAGRAM_CONTACT_ID : DEMO_WHATSAPP_CONTACT_ID;
  const name = channel === 'instagram' ? ['Grace', 'Hopper'] : ['Alan', 'Turing'];
  const own =
    channel === 'instagram'
      ? { ig_id: 5_000_004_343, ig_username: 'grace.h', ig_last_interaction: iso, whatsapp_phone: null }
      : { ig_id: null, whatsapp_phone: '+15550004444', last_interaction: iso };
  return {
    channel,
    contact: {
      id: Number(id),
      page_id: Number(DEMO_PAGE_ID),
      first_name: name[0],
      last_name: name[1],
      name: name.join(' '),
      last_input_text: text,
      ...own,
      custom_fields: {},
    },
  };
}

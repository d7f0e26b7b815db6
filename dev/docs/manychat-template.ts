import type { ManyChatChannel } from '../../core/manychat-channels.js';

/**
 * The ManyChat request template the README's walkthrough shows, in one place: the README is
 * generated from it (`npm run docs`) and test/workers/manychat-template.test.ts fills it the way
 * ManyChat does and posts it to the Worker, so the documented template and the Worker cannot
 * drift apart.
 */

/** The request URL; `<tenant>` is the tenant id, `<worker>` the Worker's PUBLIC_URL. */
export const MANYCHAT_REQUEST_URL = '<worker>/v1/manychat/<tenant>';

export const MANYCHAT_REQUEST_HEADERS: readonly { name: string; value: string; why: string }[] = [
  { name: 'Content-Type', value: 'application/json', why: 'the body is JSON' },
  {
    name: 'x-staged-agent-secret',
    value: "<the tenant's webhook secret>",
    why: 'printed once by `npm run tenant -- create` (or `rotate … --secret webhook`); compared in constant time',
  },
];

import { manyChatRequestBody, MANYCHAT_REQUEST_BODY } from '../../src/channels/manychat/request-template.js';

/** The body, exactly as typed into ManyChat's body editor (one source, shared with the dashboard). */
export { manyChatRequestBody, MANYCHAT_REQUEST_BODY };

/** What ManyChat puts where each variable stands. */
export interface ManyChatVariables {
  /** The contact object ManyChat sends for Full Contact Data. */
  fullContactData: Record<string, unknown>;
  /** The channel typed into the template (default: Instagram, the walkthrough's). */
  channel?: ManyChatChannel;
}

/** The body ManyChat sends for these values: Full Contact Data as a JSON object in place of its variable. */
export function fillManyChatTemplate(vars: ManyChatVariables): string {
  return manyChatRequestBody(vars.channel).replace('{{Full Contact Data}}', JSON.stringify(vars.fullContactData));
}

/** The reply is a Dynamic Block v2: in a Dynamic Block it is shown as is; no mapping is needed. */
export const MANYCHAT_RESPONSE_NOTE =
  'The Worker answers a Dynamic Block v2 in the shape the contact\'s channel accepts (`{"version":"v2","content":{"type":"instagram","messages":[…],"actions":[],"quick_replies":[…]}}`; no `type` on Facebook; on WhatsApp and Telegram the buttons ride on the text message, which have no quick replies): a Dynamic Block shows it to the contact as it is — no response mapping.';

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
  { name: 'x-staged-agent-secret', value: '<the tenant\'s webhook secret>', why: 'printed once by `npm run tenant -- create` (or `rotate … --secret webhook`); compared in constant time' },
];

import { MANYCHAT_REQUEST_BODY } from '../../src/channels/manychat/request-template.js';

/** The body, exactly as typed into ManyChat's body editor (one source, shared with the dashboard). */
export { MANYCHAT_REQUEST_BODY };

/** What ManyChat puts where each variable stands. */
export interface ManyChatVariables {
  /** The contact object ManyChat sends for Full Contact Data. */
  fullContactData: Record<string, unknown>;
  lastInputText: string;
  userId: string;
  lastInteraction: string;
}

/**
 * The body ManyChat sends for these values: Full Contact Data as a JSON object, the other
 * variables as text inside their JSON strings (escaped, as ManyChat's JSON body editor does).
 */
export function fillManyChatTemplate(vars: ManyChatVariables): string {
  const inString = (value: string) => JSON.stringify(value).slice(1, -1);
  return MANYCHAT_REQUEST_BODY.replace('{{Full Contact Data}}', JSON.stringify(vars.fullContactData))
    .replace('{{last_input_text}}', inString(vars.lastInputText))
    .replace('{{user_id}}', inString(vars.userId))
    .replace('{{last_interaction}}', inString(vars.lastInteraction));
}

/** The reply is a Dynamic Block v2: in a Dynamic Block it is shown as is; no mapping is needed. */
export const MANYCHAT_RESPONSE_NOTE =
  'The Worker answers a Dynamic Block v2 (`{"version":"v2","content":{"messages":[…],"actions":[],"quick_replies":[…]}}`): a Dynamic Block shows it to the contact as it is — no response mapping.';

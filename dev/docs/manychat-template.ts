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
  { name: 'x-staged-agent-secret', value: '<the tenant\'s webhook secret>', why: 'printed once by `npm run tenant -- create` (or `rotate … --secret webhook`); compared in constant time' },
];

/**
 * The body, exactly as typed into ManyChat's body editor. `{{Full Contact Data}}` is inserted
 * from the "Add variable" menu (System fields → Full Contact Data) and becomes the contact as a
 * JSON object: the Worker reads the message from its `last_input_text` and makes one delivery key
 * per message from the channel's own last-interaction time (Instagram: `ig_last_interaction`), so
 * a retry of the same request joins the same turn. `"channel"` is the channel the flow runs on
 * (`facebook`, `instagram`, `whatsapp` or `telegram`): a ManyChat flow belongs to one channel, and
 * Telegram contacts carry no field that tells it. There is deliberately no
 * `"text": "{{last_input_text}}"`: ManyChat pastes the text into the JSON unescaped, so a quote
 * or a line break the contact types would break the body.
 */
export function manyChatRequestBody(channel: ManyChatChannel = 'instagram'): string {
  return `{
  "channel": "${channel}",
  "contact": {{Full Contact Data}}
}`;
}

/** The walkthrough's template, for an Instagram flow (change `"channel"` for another channel). */
export const MANYCHAT_REQUEST_BODY = manyChatRequestBody('instagram');

/**
 * The template the README's generated walkthrough still shows (README.md is being rewritten on
 * another branch and is not edited here): with `"text": "{{last_input_text}}"`, which breaks on a
 * quote or a newline. The Worker still accepts it. The README's owner switches
 * dev/docs/readme-sections.ts to MANYCHAT_REQUEST_BODY / MANYCHAT_RESPONSE_NOTE and runs `npm run docs`.
 */
export const README_MANYCHAT_REQUEST_BODY = `{
  "contact": {{Full Contact Data}},
  "text": "{{last_input_text}}",
  "message_key": "{{user_id}}:{{last_interaction}}"
}`;
export const README_MANYCHAT_RESPONSE_NOTE =
  'The Worker answers a Dynamic Block v2 (`{"version":"v2","content":{"messages":[…],"actions":[],"quick_replies":[…]}}`): a Dynamic Block shows it to the contact as it is — no response mapping.';

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

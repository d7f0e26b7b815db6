import type { ManyChatChannel } from '../../../core/manychat-channels.js';

/**
 * The body a ManyChat Dynamic Block (or External Request) sends, exactly as typed into
 * ManyChat's body editor: one source for the README (dev/docs/manychat-template.ts re-exports it
 * for `npm run docs` and the template test) and the dashboard's Connect ManyChat page.
 * `{{Full Contact Data}}` is inserted from the "Add variable" menu (System fields → Full Contact
 * Data) and becomes the contact as a JSON object: the Worker reads the message from its
 * `last_input_text` and makes one delivery key per message from the channel's own
 * last-interaction time (Instagram: `ig_last_interaction`), so a retry of the same request joins
 * the same turn. `"channel"` is the channel the flow runs on (`facebook`, `instagram`, `whatsapp`
 * or `telegram`): a ManyChat flow belongs to one channel, and Telegram contacts carry no field
 * that tells it. There is deliberately no `"text": "{{last_input_text}}"`: ManyChat pastes the
 * text into the JSON unescaped, so a quote or a line break the contact types would break the body.
 */
export function manyChatRequestBody(channel: ManyChatChannel = 'instagram'): string {
  return `{
  "channel": "${channel}",
  "contact": {{Full Contact Data}}
}`;
}

/** The walkthrough's template, for an Instagram flow (change `"channel"` for another channel). */
export const MANYCHAT_REQUEST_BODY = manyChatRequestBody('instagram');

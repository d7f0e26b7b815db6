/**
 * The body a ManyChat Dynamic Block (or External Request) sends, exactly as typed into
 * ManyChat's body editor: one source for the README (dev/docs/manychat-template.ts re-exports it
 * for `npm run docs` and the template test) and the dashboard's Connect ManyChat page.
 * `{{Full Contact Data}}` is inserted from the "Add variable" menu (System fields → Full Contact
 * Data) and becomes the contact as a JSON object; `{{last_input_text}}` is the contact's last
 * message; `{{user_id}}` and `{{last_interaction}}` make one key per message (a retry of the
 * same request joins the same turn).
 */
export const MANYCHAT_REQUEST_BODY = `{
  "contact": {{Full Contact Data}},
  "text": "{{last_input_text}}",
  "message_key": "{{user_id}}:{{last_interaction}}"
}`;

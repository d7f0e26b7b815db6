/**
 * `… | npx tsx dev/press-button.ts Yes` — reads a Dynamic Block answer on stdin and presses the
 * button with that caption the way ManyChat does: POSTs the button's payload to its url (no
 * secret header; the payload is signed). Finds it among quick replies (Facebook, Instagram) or
 * on the text message (WhatsApp, Telegram). Prints the answer. Dev only.
 */
const caption = process.argv[2] ?? 'Yes';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const block = JSON.parse(input) as { content?: { quick_replies?: Button[]; messages?: { buttons?: Button[] }[] } };
interface Button {
  type: string;
  caption: string;
  url: string;
  payload: unknown;
}
const buttons = [
  ...(block.content?.quick_replies ?? []),
  ...(block.content?.messages ?? []).flatMap((m) => m.buttons ?? []),
];
const button = buttons.find((b) => b.type === 'dynamic_block_callback' && b.caption === caption);
if (!button) {
  console.error(
    `no "${caption}" button in that answer (buttons: ${buttons.map((b) => b.caption).join(', ') || 'none'})`,
  );
  process.exit(1);
}
const res = await fetch(button.url, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(button.payload),
});
console.log(`HTTP ${res.status} x-confirmation-outcome: ${res.headers.get('x-confirmation-outcome') ?? '-'}`);
console.log(await res.text());
export {};

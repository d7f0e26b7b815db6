/**
 * `… | npx tsx dev/press-button.ts Yes` — reads a Dynamic Block answer on stdin and presses the
 * button with that caption the way ManyChat does: POSTs the button's payload to its url (no
 * secret header; the payload is signed). Finds it among quick replies (Facebook, Instagram) or
 * on the text message (WhatsApp, Telegram). Prints what was asked (text and buttons), then the
 * press's answer. Dev only.
 */
const caption = process.argv[2] ?? 'Yes';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const block = JSON.parse(input) as {
  content?: { quick_replies?: Button[]; messages?: { text?: string; buttons?: Button[] }[] };
};
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
// What the contact was asked, first: the pipe would otherwise show only the answer to the press.
const asked = (block.content?.messages ?? []).map((m) => m.text ?? '').join(' ');
console.log(`asked: ${asked}  [${buttons.map((b) => b.caption).join(' | ')}]`);
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
console.log(
  `pressed "${caption}": HTTP ${res.status} x-confirmation-outcome: ${res.headers.get('x-confirmation-outcome') ?? '-'}`,
);
console.log(await res.text());
export {};

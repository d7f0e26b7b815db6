import type { V2ContentData } from './schemas.js';

/**
 * What ManyChat refuses per channel (docs/protocols.md, "ManyChat on Instagram, WhatsApp and
 * Telegram"), written from ManyChat's response references, not from the product: a v2 content
 * for a contact on one channel. Used by sendContent and by `dynamicBlockProblems` (the webhook's
 * answers, as a Dynamic Block on that channel would take them).
 *
 * The error words are ManyChat's validation envelope (`{"status":"error","message":…,"details":…}`);
 * ManyChat documents no per-channel error text, so the messages say what its docs say is refused.
 */
export type SandboxChannel = 'facebook' | 'instagram' | 'whatsapp' | 'telegram';

const MESSAGE_TYPES: Record<SandboxChannel, readonly string[]> = {
  facebook: ['text', 'image', 'video', 'audio', 'file', 'cards'],
  instagram: ['text', 'image', 'cards'],
  whatsapp: ['text'],
  telegram: ['text', 'image', 'video', 'audio', 'file'],
};
// Instagram: Meta's send-message page says "less than 1000 characters" and "UTF-8 and … 1000 bytes or less".
const TEXT_LIMIT: Record<SandboxChannel, number> = { facebook: 2000, instagram: 999, whatsapp: 4096, telegram: 4096 };
const TEXT_BYTES: Partial<Record<SandboxChannel, number>> = { instagram: 1000 };
const utf8 = new TextEncoder();
const NAME: Record<SandboxChannel, string> = {
  facebook: 'Facebook',
  instagram: 'Instagram',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
};

export function channelProblems(channel: SandboxChannel, data: Pick<V2ContentData, 'content'>): string[] {
  const problems: string[] = [];
  const type = data.content.type;
  if (channel === 'facebook' && type !== undefined)
    problems.push(`data.content.type: "${type}" does not match the contact's channel (Facebook takes no content type)`);
  if (channel !== 'facebook' && type === undefined)
    problems.push(
      `data.content.type: required for ${channel === 'instagram' ? 'an' : 'a'} ${NAME[channel]} contact ("${channel}")`,
    );
  if (channel !== 'facebook' && type !== undefined && type !== channel)
    problems.push(`data.content.type: "${type}" does not match the contact's channel ("${channel}")`);
  if ((channel === 'whatsapp' || channel === 'telegram') && data.content.quick_replies?.length)
    problems.push(`data.content.quick_replies: Quick Reply buttons are not supported by ${NAME[channel]}`);
  data.content.messages.forEach((m, i) => {
    if (!MESSAGE_TYPES[channel].includes(m.type))
      problems.push(
        `data.content.messages.${i}: sending ${m.type === 'cards' ? 'galleries' : `${m.type} files`} is not supported by ${NAME[channel]}`,
      );
    if (m.type === 'text' && m.text.length > TEXT_LIMIT[channel])
      problems.push(`data.content.messages.${i}.text: longer than ${TEXT_LIMIT[channel]} characters`);
    const maxBytes = TEXT_BYTES[channel];
    if (m.type === 'text' && maxBytes !== undefined && utf8.encode(m.text).length > maxBytes)
      problems.push(`data.content.messages.${i}.text: more than ${maxBytes} UTF-8 bytes`);
    const buttons = 'buttons' in m ? (m.buttons as unknown[] | undefined) : undefined;
    if (buttons && buttons.length > 3) problems.push(`data.content.messages.${i}.buttons: at most 3 buttons`);
    // WhatsApp turns a text with reply buttons into an interactive message: its body is at most 1024 characters.
    if (channel === 'whatsapp' && m.type === 'text' && buttons?.length && m.text.length > 1024)
      problems.push(`data.content.messages.${i}.text: a WhatsApp message with buttons longer than 1024 characters`);
  });
  return problems;
}

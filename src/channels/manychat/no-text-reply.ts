/** What a contact attached, told from what ManyChat sent (see docs/protocols.md): a lone https URL in last_input_text. */
export function attachmentsOfInput(text: string): { type: string; url: string }[] {
  const trimmed = text.trim();
  if (!/^https:\/\/\S+$/.test(trimmed) || trimmed.length > 2000) return [];
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return [];
  }
  // Only the platforms' own media hosts: a contact who pastes a link wrote a message, not an attachment.
  if (!/(^|\.)(fbsbx\.com|fbcdn\.net|cdninstagram\.com|whatsapp\.net|manychat\.com|telegram\.org)$/.test(url.hostname))
    return [];
  const path = url.pathname.toLowerCase();
  const type = /\.(jpe?g|png|gif|webp|heic)$/.test(path)
    ? 'image'
    : /\.(mp4|mov|webm)$/.test(path)
      ? 'video'
      : /\.(mp3|m4a|ogg|oga|opus|aac|wav)$/.test(path)
        ? 'audio'
        : 'file';
  return [{ type, url: trimmed }];
}

/**
 * Slack message text (mrkdwn), the one escaper every notification uses. Slack reads `<…>` as a
 * link, a mention (`<!channel>`, `<@U…>`) or a channel, and `&` starts an entity; escaping the
 * three (as Slack's "Formatting text" asks) makes anything else plain text. Only the links we
 * build ourselves (`slackLink`) are formatted.
 */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `<url|label>`: our own URL (a `|` or `>` in it would end the link early, so it is percent-encoded) and an escaped label. */
export function slackLink(url: string, label: string): string {
  return `<${url.replace(/[|<>\s]/g, (ch) => encodeURIComponent(ch))}|${slackEscape(label)}>`;
}

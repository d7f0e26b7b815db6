import { describe, expect, it } from 'vitest';
import { slackEscape, slackLink } from './slack-text.js';

describe('slack text', () => {
  it('escapes what Slack reads as a mention, a link or an entity', () => {
    expect(slackEscape('<!channel> <https://x|Approve now> & <@U123>')).toBe(
      '&lt;!channel&gt; &lt;https://x|Approve now&gt; &amp; &lt;@U123&gt;',
    );
  });

  it('builds one link whose label cannot open another', () => {
    expect(slackLink('https://w.example/a|b>c', '<!here> Review')).toBe(
      '<https://w.example/a%7Cb%3Ec|&lt;!here&gt; Review>',
    );
  });
});

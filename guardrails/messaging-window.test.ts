import { describe, expect, it } from 'vitest';
import { act } from '../test/support/guardrail-input.js';
import { checkMessagingWindow } from './messaging-window.js';
import { MessagingWindowSettingsSchema } from '../core/tenant/guardrail-settings.js';

const settings = MessagingWindowSettingsSchema.parse({ allowedMessageTags: ['HUMAN_AGENT'] });
const now = '2026-11-29T12:00:00.000Z';
const daysAgo = (d: number) => new Date(Date.parse(now) - d * 24 * 3600_000).toISOString();
const tagged = (tag: string) => ({ ...act.flow('brochure'), args: { ...act.flow('brochure').args, messageTag: tag } });

describe('checkMessagingWindow', () => {
  it('only sends are subject to the window', () => {
    expect(checkMessagingWindow(act.tag('interested'), daysAgo(30), now, settings).ok).toBe(true);
    expect(checkMessagingWindow(act.field('age', 3), daysAgo(30), now, settings).ok).toBe(true);
  });

  it('HUMAN_AGENT extends the window to 7 days, not beyond', () => {
    expect(checkMessagingWindow(tagged('HUMAN_AGENT'), daysAgo(6), now, settings).ok).toBe(true);
    const late = checkMessagingWindow(tagged('HUMAN_AGENT'), daysAgo(7), now, settings);
    expect(late.ok).toBe(false);
    expect(late.why).toContain('7-day');
  });

  it('a last interaction in the future (clock skew) counts as now', () => {
    expect(checkMessagingWindow(act.flow('brochure'), '2026-11-30T12:00:00Z', now, settings).ok).toBe(true);
  });

  it('an unreadable receive time fails closed', () => {
    expect(checkMessagingWindow(act.flow('brochure'), undefined, 'not a time', settings).ok).toBe(false);
  });
});

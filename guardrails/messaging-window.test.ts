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
    // Even with a message tag the tenant allows: no time, no window to judge (issue 22).
    expect(checkMessagingWindow(tagged('HUMAN_AGENT'), undefined, 'not a time', settings).ok).toBe(false);
  });

  const minutesAgo = (m: number) => new Date(Date.parse(now) - m * 60_000).toISOString();
  const DAY_MIN = 24 * 60;

  it('an ungated send counts its delivery margin (15 min): the window ends exactly 24 h after the last message', () => {
    expect(checkMessagingWindow(act.flow('brochure'), minutesAgo(DAY_MIN - 15), now, settings)).toEqual({
      ok: true,
      why: 'within the 24-hour window',
    });
    const out = checkMessagingWindow(act.flow('brochure'), minutesAgo(DAY_MIN - 14), now, settings);
    expect(out.ok).toBe(false);
    expect(out.why).toBe(
      'send flow "brochure" would be sent 24 h after the contact\'s last message, outside the 24-hour window, and carries no message tag',
    );
  });

  it('a gated send counts the longer gated margin (60 min)', () => {
    const gated = { ...act.flow('brochure'), gate: 'confirm' as const };
    expect(checkMessagingWindow(gated, minutesAgo(DAY_MIN - 60), now, settings).ok).toBe(true);
    expect(checkMessagingWindow(gated, minutesAgo(DAY_MIN - 59), now, settings).ok).toBe(false);
    // The same last message is fine for an ungated send.
    expect(checkMessagingWindow(act.flow('brochure'), minutesAgo(DAY_MIN - 59), now, settings).ok).toBe(true);
  });

  it('without a last interaction the inbound message is the last one', () => {
    expect(checkMessagingWindow(act.flow('brochure'), undefined, now, settings).ok).toBe(true);
  });

  it('an unreadable last interaction fails closed, quoting at most 40 characters', () => {
    const bad = `x${'y'.repeat(60)}`;
    expect(checkMessagingWindow(act.flow('brochure'), bad, now, settings)).toEqual({
      ok: false,
      why: `the contact's last interaction "${bad.slice(0, 40)}" is not a readable time`,
    });
  });

  it('outside the window a tag the tenant may not use is refused; an allowed one is accepted', () => {
    const noTags = MessagingWindowSettingsSchema.parse({});
    const v = checkMessagingWindow(tagged('HUMAN_AGENT'), daysAgo(2), now, noTags);
    expect(v).toEqual({
      ok: false,
      why: 'send flow "brochure" is outside the 24-hour window and message tag HUMAN_AGENT is not allowed for this tenant',
    });
    expect(checkMessagingWindow(tagged('HUMAN_AGENT'), daysAgo(2), now, settings)).toEqual({
      ok: true,
      why: 'outside the 24-hour window with allowed message tag HUMAN_AGENT',
    });
  });

  it('a tag that is not HUMAN_AGENT has no 7-day limit here', () => {
    const other = MessagingWindowSettingsSchema.parse({ allowedMessageTags: ['ACCOUNT_UPDATE'] });
    expect(checkMessagingWindow(tagged('ACCOUNT_UPDATE'), daysAgo(10), now, other).ok).toBe(true);
  });

  it("HUMAN_AGENT's 7 days include the margin, to the minute", () => {
    expect(checkMessagingWindow(tagged('HUMAN_AGENT'), minutesAgo(7 * DAY_MIN - 15), now, settings).ok).toBe(true);
    expect(checkMessagingWindow(tagged('HUMAN_AGENT'), minutesAgo(7 * DAY_MIN - 14), now, settings).ok).toBe(false);
  });

  it('a non-string message tag is no tag', () => {
    const numeric = { ...act.flow('brochure'), args: { ...act.flow('brochure').args, messageTag: 7 } };
    expect(checkMessagingWindow(numeric, daysAgo(2), now, settings).why).toContain('carries no message tag');
  });
});

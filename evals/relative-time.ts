/**
 * Times in eval cases are relative to the run, so no case depends on today's date: `"-2h"` is two
 * hours before the turn is sent, `"now"` the moment it is sent. A case that really means one
 * fixed instant says so with `"absoluteTimes": true` (the loader refuses absolute times otherwise).
 * Durations (`"1h"`, `"90s"`) use the same units without a sign.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const RELATIVE = /^(now|([+-])(\d+(?:\.\d+)?)(ms|s|m|h|d))$/;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

export const RELATIVE_TIME_HELP =
  'a time relative to the run: "now", or a signed amount with a unit ms|s|m|h|d, e.g. "-2h", "+30m"';

export function isRelativeTime(value: string): boolean {
  return RELATIVE.test(value);
}

/** The offset from now a relative time names (ms); null when it is not one. */
export function relativeOffsetMs(value: string): number | null {
  const m = RELATIVE.exec(value);
  if (!m) return null;
  if (m[1] === 'now') return 0;
  const amount = Number(m[3]) * UNIT_MS[m[4] as keyof typeof UNIT_MS];
  return m[2] === '-' ? -amount : amount;
}

/** A duration such as "1h" or "24h" in ms; null when it is not one. */
export function durationMs(value: string): number | null {
  const m = DURATION.exec(value);
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : null;
}

/** ManyChat's own format for `last_interaction` (seconds, explicit UTC offset). */
export function manyChatTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/**
 * The value to send for a case's time: a relative time resolved against `now`, in ManyChat's
 * format; an absolute one (the loader only lets it through when the case asked) as written.
 */
export function resolveCaseTime(value: string, now: Date): string {
  const offset = relativeOffsetMs(value);
  return offset === null ? value : manyChatTime(new Date(now.getTime() + offset));
}

/** Why a case's time value is refused, or null when it is acceptable. */
export function caseTimeProblem(value: string, absoluteAllowed: boolean): string | null {
  if (isRelativeTime(value)) return null;
  if (!absoluteAllowed) {
    return `"${value}" is not ${RELATIVE_TIME_HELP}; an absolute time makes the case depend on the date it runs (set "absoluteTimes": true on the case if it means that exact instant)`;
  }
  return Number.isNaN(Date.parse(value)) ? `"${value}" is neither a relative time nor a readable absolute time` : null;
}

import type { ExpectationCore, RepliesExpect } from './case-expect-schema.js';
import { j, list, type DeliveryView, type Observed } from './observed.js';

/** Checks over every delivery of a turn: status per delivery, every reply, the webhook's own latency. */

const shown = (d: DeliveryView) => (d.error && !d.status ? `error ${d.error}` : String(d.status));

export function checkStatuses(exp: ExpectationCore, o: Observed): string[] {
  if (exp.statuses) {
    const got = o.deliveries.map((d) => d.status);
    const [want, have] = o.concurrent ? [[...exp.statuses].sort(), [...got].sort()] : [exp.statuses, got];
    if (j(want) !== j(have))
      return [
        `statuses: expected ${list(exp.statuses.map(String))}${o.concurrent ? ' (in any order: the deliveries were concurrent)' : ''}, got ${list(o.deliveries.map(shown))}`,
      ];
    if (exp.status === undefined) return [];
  }
  const status = exp.status ?? 200;
  const bad = o.deliveries.filter((d) => d.status !== status);
  return bad.length
    ? [`status: expected every delivery to answer ${status}, got ${list(o.deliveries.map(shown))}`]
    : [];
}

function isNoOp(text: string, r: RepliesExpect): boolean {
  const lower = text.toLowerCase();
  return text === '' || r.noOp.some((s) => lower.includes(s.toLowerCase()));
}

/** Every delivery's reply: the turn's reply (the first that is not a no-op) or an accepted no-op; never a forbidden phrase. */
export function checkReplies(r: RepliesExpect | undefined, o: Observed): string[] {
  if (!r) return [];
  const f: string[] = [];
  const texts = o.deliveries.map((d) => d.replyText ?? '');
  const n = texts.length;
  const noOps = `an accepted no-op answer (empty${r.noOp.length ? `, or containing ${r.noOp.map((s) => j(s)).join(' or ')}` : ''})`;
  if (r.match === 'same') {
    texts.forEach((t, i) => {
      if (t !== texts[0])
        f.push(
          `replies: expected delivery ${i + 1} of ${n} to get the same reply as delivery 1 (${j(texts[0])}), got ${j(t)}`,
        );
    });
  } else {
    const main = texts.findIndex((t) => !isNoOp(t, r));
    texts.forEach((t, i) => {
      if (main >= 0 && t !== texts[main] && !isNoOp(t, r))
        f.push(
          `replies: expected delivery ${i + 1} of ${n} to get the turn's reply (${j(texts[main])}) or ${noOps}, got ${j(t)}`,
        );
    });
  }
  texts.forEach((t, i) => {
    const lower = t.toLowerCase();
    for (const s of r.notContains ?? [])
      if (lower.includes(s.toLowerCase()))
        f.push(`replies: expected no reply to contain ${j(s)}, delivery ${i + 1} of ${n} got ${j(t)}`);
    if (isNoOp(t, r) && r.match === 'same-or-no-op') return;
    for (const s of r.contains ?? [])
      if (!lower.includes(s.toLowerCase()))
        f.push(`replies: expected every reply to contain ${j(s)}, delivery ${i + 1} of ${n} got ${j(t)}`);
  });
  return f;
}

export function checkWebhookMs(limit: { max: number } | undefined, o: Observed): string[] {
  if (!limit) return [];
  return o.deliveries.flatMap((d, i) =>
    d.ms > limit.max
      ? [
          `webhookMs: expected every delivery to be answered within ${limit.max} ms, delivery ${i + 1} of ${o.deliveries.length} took ${Math.round(d.ms)} ms (status ${shown(d)})`,
        ]
      : [],
  );
}

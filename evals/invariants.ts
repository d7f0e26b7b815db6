import type { ActionView, CallView } from './observed.js';
import { j } from './observed.js';
import type { TurnObservation } from './turn-observation.js';

/**
 * What every case must keep, whatever its own expectations say and whichever deadline path a
 * drawn latency put a turn on: nothing reaches ManyChat that no committed outbox entry asked for
 * (never outside the outbox), and a send (flow, content) is performed at most as often as it was
 * committed (never twice). Checked over the whole case, since a turn's delivery may land while
 * the next turn runs.
 */
function callKey(c: CallView): string | null {
  switch (c.call) {
    case 'sendFlow':
      return `sendFlow:${c.flow ?? ''}`;
    case 'addTag':
    case 'removeTag':
      return `${c.call}:${c.tag ?? ''}`;
    case 'setField':
      return `setField:${c.field ?? ''}=${j(c.value)}`;
    default:
      return null;
  }
}

function actionKey(a: ActionView): string | null {
  switch (a.kind) {
    case 'send_flow':
      return `sendFlow:${String(a.args.flowName ?? '')}`;
    case 'add_tag':
      return `addTag:${String(a.args.tag ?? '')}`;
    case 'remove_tag':
      return `removeTag:${String(a.args.tag ?? '')}`;
    case 'set_field':
      return `setField:${String(a.args.field ?? '')}=${j(a.args.value)}`;
    default:
      return null;
  }
}

const SENDS = new Set(['sendFlow', 'sendContent']);

export function caseInvariantFailures(turns: readonly TurnObservation[]): string[] {
  const committed = turns.flatMap((t) => t.committed);
  const performed = turns.flatMap((t) => t.performed);
  const failures: string[] = [];
  const budget = new Map<string, number>();
  for (const a of committed) {
    const key = actionKey(a);
    if (key) budget.set(key, (budget.get(key) ?? 0) + 1);
  }
  const contents = committed.filter((a) => a.kind === 'send_content').map((a) => String(a.args.text ?? ''));
  const used = new Map<string, number>();
  for (const call of performed) {
    if (call.call === 'sendContent') {
      const i = contents.findIndex((text) => text && (call.text ?? '').includes(text));
      if (i < 0)
        failures.push(
          `invariant: sendContent "${(call.text ?? '').slice(0, 60)}" was performed, but no committed outbox entry sends it`,
        );
      else contents.splice(i, 1); // each committed content at most once
      continue;
    }
    const key = callKey(call);
    if (!key) continue;
    used.set(key, (used.get(key) ?? 0) + 1);
    const allowed = budget.get(key) ?? 0;
    if (allowed === 0) failures.push(`invariant: ${key} was performed, but no committed outbox entry asks for it`);
    else if (SENDS.has(call.call) && used.get(key)! > allowed)
      failures.push(`invariant: ${key} was performed ${used.get(key)} times, committed ${allowed}`);
  }
  return [...new Set(failures)];
}

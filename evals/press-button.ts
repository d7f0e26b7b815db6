import type { CaseTurn } from './case-format.js';
import type { CaseState, IssuedButton } from './turn-observation.js';

/**
 * A button press: the runner takes a button the Worker issued to the contact (a
 * `dynamic_block_callback` quick reply: url + signed payload) and posts its payload to its url,
 * exactly as ManyChat does when the contact taps it — no secret header, the payload as given.
 * `tamper` forges the press instead: another contact, the other answer, or a broken signature.
 */

export interface PressPlan {
  button: IssuedButton;
  /** What is posted: the button's payload, or its forged copy. */
  body: Record<string, unknown>;
  /** The pinned row a Yes/No button is bound to (null for a suggested quick reply). */
  rowId: string | null;
  /** 1-based turn whose reply carried the button. */
  fromTurn: number;
}

/** The turn whose reply a press uses: `from`, or the contact's latest earlier reply. */
function sourceTurn(
  state: CaseState,
  turn: CaseTurn,
  index: number,
): { index: number; buttons: IssuedButton[] } | string {
  if (turn.from !== undefined) {
    const src = state.buttons.get(turn.from - 1);
    if (turn.from - 1 >= index) return `press: "from": ${turn.from} is not an earlier turn`;
    if (!src)
      return `press: turn ${turn.from} sent the contact no reply with buttons to press (a tenant decision, or a delivery that failed)`;
    if (src.contact !== turn.contact)
      return `press: turn ${turn.from}'s reply went to contact "${src.contact}", not "${turn.contact}"`;
    return { index: turn.from - 1, buttons: src.buttons };
  }
  for (let i = index - 1; i >= 0; i--) {
    const src = state.buttons.get(i);
    if (src?.contact === turn.contact) return { index: i, buttons: src.buttons };
  }
  return `press: contact "${turn.contact}" has no earlier reply to press a button of`;
}

function flipHex(sig: string): string {
  const last = sig.slice(-1);
  return sig.slice(0, -1) + (last === '0' ? '1' : '0');
}

function forge(payload: Record<string, unknown>, tamper: NonNullable<CaseTurn['tamper']>): Record<string, unknown> {
  const body = structuredClone(payload) as {
    contact?: { id?: unknown };
    callback?: Record<string, unknown>;
    sig?: unknown;
  };
  if (tamper === 'contact') body.contact = { ...(body.contact ?? {}), id: `9${String(body.contact?.id ?? '1')}` };
  if (tamper === 'answer' && body.callback) {
    if (body.callback.kind === 'confirm') body.callback.answer = body.callback.answer === 'yes' ? 'no' : 'yes';
    else body.callback.text = `${String(body.callback.text ?? '')} please`;
  }
  if (tamper === 'sig') body.sig = flipHex(String(body.sig ?? ''));
  return body as Record<string, unknown>;
}

/** The button to press and what to post, or why the press cannot be made (a turn failure). */
export function planPress(state: CaseState, turn: CaseTurn, index: number): PressPlan | string {
  const src = sourceTurn(state, turn, index);
  if (typeof src === 'string') return src;
  const caption = turn.press!.toLowerCase();
  const button = src.buttons.find((b) => b.caption.toLowerCase() === caption);
  if (!button) {
    return `press: the reply of turn ${src.index + 1} has no button ${JSON.stringify(turn.press)}; its buttons: [${src.buttons.map((b) => JSON.stringify(b.caption)).join(', ')}]`;
  }
  const callback = button.payload.callback as { kind?: string; pendingId?: string } | undefined;
  return {
    button,
    body: turn.tamper ? forge(button.payload, turn.tamper) : button.payload,
    rowId: callback?.kind === 'confirm' && typeof callback.pendingId === 'string' ? callback.pendingId : null,
    fromTurn: src.index + 1,
  };
}

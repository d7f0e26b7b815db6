import { canonicalJson } from '../core/canonical-json.js';
import type { StagedAction } from '../core/staged-action.js';

/**
 * The turn's staging area. Write tools append here; nothing here has happened. Only the commit
 * after the guardrails pass turns these into outbox work.
 */
export class TurnStaging {
  readonly actions: StagedAction[] = [];
  private seq = 0;

  constructor(private readonly turnId: string) {}

  nextActionId(): string {
    this.seq++;
    return `${this.turnId}.a${this.seq}`;
  }

  /** Stages an action; the same kind with the same arguments twice in a turn stages it once. */
  stage(action: Omit<StagedAction, 'id'>): StagedAction {
    const same = this.actions.find(
      (a) => a.kind === action.kind && canonicalJson(a.args) === canonicalJson(action.args),
    );
    if (same) return same;
    const staged = { ...action, id: this.nextActionId() };
    this.actions.push(staged);
    return staged;
  }
}

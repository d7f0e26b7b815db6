import { describe, expect, it } from 'vitest';
import type { StagedAction } from '../../core/staged-action.js';
import { decideTurn, type DecideInput, type TurnDecision } from './decide-turn.js';
import type { LoopOutcome } from './model-loop.js';

const now = new Date('2026-03-01T10:00:00.000Z');
const config = { fallbackReply: 'FALLBACK', handoff: { tag: 'human_handoff', reply: 'HANDOFF', silenceMinutes: 60 } };
const action = (id: string, gate: StagedAction['gate']): StagedAction => ({
  id,
  tool: 't',
  kind: 'add_tag',
  args: { tag: id },
  effect: 'write',
  idempotent: true,
  gate,
  summary: id,
});
const staged = [action('open', 'none'), action('asks', 'confirm'), action('waits', 'approval')];

const loops: Record<'reply' | 'no-reply' | 'error', LoopOutcome> = {
  reply: {
    kind: 'reply',
    reply: { text: 'MODEL', escalate: false, confidence: 0.9, reason: 'r', quickReplies: ['More'] },
    modelReply: null,
    steps: [],
  },
  'no-reply': { kind: 'no-reply', why: 'no reply call', steps: [] },
  error: { kind: 'error', why: 'model down', aborted: false, steps: [] },
};
const verdicts = {
  none: null,
  pass: { outcome: 'pass' as const, reason: 'every guardrail passed' },
  veto: { outcome: 'veto' as const, reason: 'content: card' },
  escalate: { outcome: 'escalate' as const, reason: 'confidence: low' },
};

type Reply = 'MODEL' | 'FALLBACK' | 'HANDOFF' | 'silence';
type Commit = 'ungated' | 'handoff' | 'nothing';
/** handoff? · loop · verdict → decision, reply, what is committed, whether gated actions are pinned, reason contains */
const table: [
  boolean,
  keyof typeof loops,
  keyof typeof verdicts,
  TurnDecision['decision'],
  Reply,
  Commit,
  boolean,
  string,
][] = [
  [false, 'reply', 'none', 'escalate', 'HANDOFF', 'handoff', false, 'not judged'],
  [false, 'reply', 'pass', 'pass', 'MODEL', 'ungated', true, 'every guardrail passed'],
  [false, 'reply', 'veto', 'veto', 'FALLBACK', 'nothing', false, 'content: card'],
  [false, 'reply', 'escalate', 'escalate', 'HANDOFF', 'handoff', false, 'confidence: low'],
  [false, 'no-reply', 'none', 'escalate', 'HANDOFF', 'handoff', false, 'not judged'],
  [false, 'no-reply', 'pass', 'escalate', 'HANDOFF', 'handoff', false, 'no usable reply: no reply call'],
  [false, 'no-reply', 'veto', 'veto', 'FALLBACK', 'nothing', false, 'content: card'],
  [false, 'no-reply', 'escalate', 'escalate', 'HANDOFF', 'handoff', false, 'confidence: low'],
  [false, 'error', 'none', 'error', 'FALLBACK', 'nothing', false, 'model down'],
  [false, 'error', 'pass', 'error', 'FALLBACK', 'nothing', false, 'model down'],
  [false, 'error', 'veto', 'error', 'FALLBACK', 'nothing', false, 'model down'],
  [false, 'error', 'escalate', 'error', 'FALLBACK', 'nothing', false, 'model down'],
  [true, 'reply', 'none', 'escalate', 'silence', 'nothing', false, 'contact in handoff'],
  [true, 'reply', 'pass', 'escalate', 'silence', 'nothing', false, 'contact in handoff'],
  [true, 'reply', 'veto', 'escalate', 'silence', 'nothing', false, 'contact in handoff'],
  [true, 'reply', 'escalate', 'escalate', 'silence', 'nothing', false, 'contact in handoff'],
  [true, 'no-reply', 'none', 'escalate', 'silence', 'nothing', false, 'no reply call'],
  [true, 'no-reply', 'pass', 'escalate', 'silence', 'nothing', false, 'no reply call'],
  [true, 'no-reply', 'veto', 'escalate', 'silence', 'nothing', false, 'no reply call'],
  [true, 'no-reply', 'escalate', 'escalate', 'silence', 'nothing', false, 'no reply call'],
  [true, 'error', 'none', 'escalate', 'silence', 'nothing', false, 'contact in handoff'],
  [true, 'error', 'pass', 'escalate', 'silence', 'nothing', false, 'contact in handoff'],
  [true, 'error', 'veto', 'escalate', 'silence', 'nothing', false, 'contact in handoff'],
  [true, 'error', 'escalate', 'escalate', 'silence', 'nothing', false, 'contact in handoff'],
];

function input(
  handoff: boolean,
  loop: keyof typeof loops,
  verdict: keyof typeof verdicts,
  deferred: boolean,
): DecideInput {
  return {
    inHandoffUntil: handoff ? '2026-03-01T11:00:00.000Z' : null,
    loop: loops[loop],
    judged: verdicts[verdict],
    deferred,
    staged,
    config,
    turnId: 'turn_x',
    now,
  };
}

describe('decideTurn: every combination of handoff, loop outcome, verdict and deferral', () => {
  for (const [handoff, loop, verdict, decision, reply, commit, pins, reason] of table) {
    for (const deferred of [false, true]) {
      it(`${handoff ? 'in handoff' : 'no handoff'} · loop ${loop} · verdict ${verdict}${deferred ? ' · deferred' : ''} → ${decision}`, () => {
        const d = decideTurn(input(handoff, loop, verdict, deferred));
        expect(d.decision).toBe(decision);
        expect(d.reason).toContain(reason);
        expect(d.reply.text).toBe(reply === 'silence' ? '' : reply);
        expect(d.reply.quickReplies).toEqual(reply === 'MODEL' ? [{ caption: 'More' }] : []);
        const expectedCommit = {
          ungated: [staged[0]],
          handoff: [
            {
              id: 'turn_x.h1',
              tool: 'system:handoff',
              kind: 'add_tag',
              args: { tag: 'human_handoff' },
              effect: 'write',
              idempotent: true,
              gate: 'none',
              summary: 'handoff: add tag "human_handoff"',
            },
          ],
          nothing: [],
        }[commit];
        expect(d.commit).toEqual(expectedCommit);
        // Never one of the model's gated actions, never a model action on anything but pass.
        expect(d.commit.some((a) => a.gate !== 'none')).toBe(false);
        if (decision !== 'pass') expect(d.commit.some((a) => staged.includes(a))).toBe(false);
        expect(d.pin).toEqual(pins ? [staged[1], staged[2]] : []);
        expect(d.handoffUntil).toBe(commit === 'handoff' ? '2026-03-01T11:00:00.000Z' : null);
        expect(d.replyRoute).toBe(reply === 'silence' ? 'none' : deferred ? 'outbox' : 'webhook');
        expect(d.recordAgentReply).toBe(!handoff);
      });
    }
  }
});

describe('decideTurn: the handoff settings', () => {
  it('no silence when silenceMinutes is 0, and no handoff action without a handoff tag', () => {
    const d = decideTurn({
      ...input(false, 'reply', 'escalate', false),
      config: { fallbackReply: 'F', handoff: { reply: 'H', silenceMinutes: 0 } },
    });
    expect(d.decision).toBe('escalate');
    expect(d.handoffUntil).toBeNull();
    expect(d.commit).toEqual([]);
  });
  it('the handoff performs only what the channel can: no tag on Messenger (it has none), the tag on ManyChat', () => {
    const messenger = decideTurn({ ...input(false, 'reply', 'escalate', true), channel: 'messenger' });
    expect(messenger.decision).toBe('escalate');
    expect(messenger.commit).toEqual([]);
    expect(messenger.replyRoute).toBe('outbox');
    expect(messenger.handoffUntil).toBe('2026-03-01T11:00:00.000Z');
    expect(
      decideTurn({ ...input(false, 'reply', 'escalate', false), channel: 'manychat' }).commit.map((a) => a.args),
    ).toEqual([{ tag: 'human_handoff' }]);
  });
  it('one minute of silence is a minute', () => {
    const d = decideTurn({
      ...input(false, 'reply', 'escalate', false),
      config: { ...config, handoff: { ...config.handoff, silenceMinutes: 1 } },
    });
    expect(d.handoffUntil).toBe('2026-03-01T10:01:00.000Z');
  });
  it('a reply without quick replies has none', () => {
    const plain: LoopOutcome = {
      kind: 'reply',
      reply: { text: 'Hi', escalate: false, confidence: 1, reason: 'r' },
      modelReply: null,
      steps: [],
    };
    expect(decideTurn({ ...input(false, 'reply', 'pass', false), loop: plain }).reply).toEqual({
      text: 'Hi',
      quickReplies: [],
    });
  });
  it('an empty reply is silence, deferred or not', () => {
    const empty: LoopOutcome = {
      kind: 'reply',
      reply: { text: '', escalate: false, confidence: 1, reason: 'r' },
      modelReply: null,
      steps: [],
    };
    expect(decideTurn({ ...input(false, 'reply', 'pass', true), loop: empty }).replyRoute).toBe('none');
  });
  it('an outcome outside pass/veto/escalate fails closed to escalate', () => {
    const d = decideTurn({
      ...input(false, 'reply', 'pass', false),
      judged: { outcome: 'allow' as unknown as 'pass', reason: 'bogus' },
    });
    expect(d.decision).toBe('escalate');
    expect(d.reason).toBe('unknown verdict "allow" (fail closed)');
    expect(d.commit.some((a) => a.tool !== 'system:handoff')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { CaseFormatError, parseCase, type Expectation } from './case-format.js';
import { checkExpectation, type DeliveryView, type Observed, type PendingView } from './expectations.js';
import { caseTimeProblem, durationMs, relativeOffsetMs, resolveCaseTime } from './relative-time.js';

const delivery = (over: Partial<DeliveryView> = {}): DeliveryView => ({
  status: 200,
  ms: 40,
  turnId: null,
  duplicateOf: null,
  deferred: false,
  replyText: 'Confirmed: it is on its way.',
  ...over,
});
const row = (over: Partial<PendingView> = {}): PendingView => ({
  id: 'ap_1',
  kind: 'approval',
  tool: 'untag_contact',
  args: { tag: 'interested' },
  status: 'pending',
  createdAt: '2030-01-01T10:00:00.000Z',
  expiresAt: '2030-01-01T11:00:00.000Z',
  ...over,
});
const observed = (over: Partial<Observed> = {}): Observed => ({
  deliveries: [delivery()],
  decision: null,
  decisionReason: null,
  replyText: 'Confirmed: it is on its way.',
  deferred: false,
  staged: [],
  committed: [],
  performed: [],
  apiCalls: [],
  pending: [],
  rows: {},
  modelCalls: 0,
  lastPrompt: null,
  ...over,
});
const check = (exp: Expectation, o: Observed) => checkExpectation(exp, o);

describe('pending', () => {
  it('matches kind, tool, subset of pinned args and expiry; says what it expected and got', () => {
    expect(
      check(
        { pending: [{ kind: 'approval', tool: 'untag_contact', args: { tag: 'interested' }, expiresIn: '1h' }] },
        observed({ pending: [row()] }),
      ),
    ).toEqual([]);
    expect(
      check(
        { pending: [{ kind: 'approval', tool: 'untag_contact', args: { tag: 'human_handoff' } }] },
        observed({ pending: [row()] }),
      ),
    ).toEqual([
      'pending: expected [approval untag_contact{"tag":"human_handoff"}, with an expiry], got [approval untag_contact{"tag":"interested"} pending, expires in 60 min]',
    ]);
    expect(check({ pending: [] }, observed({ pending: [row()] }))[0]).toContain(
      'pending: expected [], got [approval untag_contact',
    );
  });

  it('refuses a row without a readable expiry even when the case does not ask for one', () => {
    expect(
      check({ pending: [{ kind: 'approval' }] }, observed({ pending: [row({ expiresAt: 'never' })] }))[0],
    ).toContain('no readable expiry');
    expect(check({ pending: [{ kind: 'approval', expiresIn: '24h' }] }, observed({ pending: [row()] }))).toHaveLength(
      1,
    );
  });

  it('checks named rows', () => {
    expect(check({ rows: { unsub: 'approved' } }, observed({ rows: { unsub: 'approved' } }))).toEqual([]);
    expect(check({ rows: { unsub: 'approved' } }, observed({ rows: { unsub: 'pending' } }))).toEqual([
      'rows: expected row "unsub" to be approved, got pending',
    ]);
    expect(check({ rows: { other: 'approved' } }, observed())[0]).toContain('no earlier turn named a row "other"');
  });
});

describe('statuses, replies, webhookMs', () => {
  it('statuses: in order for sequential deliveries, as a multiset for concurrent ones; replaces the default 200', () => {
    const two = [delivery(), delivery({ status: 409, replyText: null })];
    expect(check({ statuses: [200, 409] }, observed({ deliveries: two }))).toEqual([]);
    expect(check({ statuses: [409, 200] }, observed({ deliveries: two }))).toEqual([
      'statuses: expected [409, 200], got [200, 409]',
    ]);
    expect(check({ statuses: [409, 200] }, observed({ deliveries: two, concurrent: true }))).toEqual([]);
    expect(check({}, observed({ deliveries: two }))[0]).toContain('status: expected every delivery to answer 200');
  });

  it('replies: the turn reply or an accepted no-op answer on every delivery; never a forbidden phrase', () => {
    const replayed = [
      delivery(),
      delivery({ replyText: 'You already answered that one; nothing more was changed.' }),
      delivery({ replyText: '' }),
    ];
    expect(
      check(
        { replies: { match: 'same-or-no-op', noOp: ['already answered'], contains: ['confirmed'] } },
        observed({ deliveries: replayed }),
      ),
    ).toEqual([]);
    expect(check({ replies: { match: 'same-or-no-op', noOp: [] } }, observed({ deliveries: replayed }))).toEqual([
      'replies: expected delivery 2 of 3 to get the turn\'s reply ("Confirmed: it is on its way.") or an accepted no-op answer (empty), got "You already answered that one; nothing more was changed."',
    ]);
    expect(check({ replies: { match: 'same', noOp: [] } }, observed({ deliveries: replayed }))).toHaveLength(2);
    expect(
      check(
        { replies: { match: 'same-or-no-op', noOp: ['already'], notContains: ['nothing more'] } },
        observed({ deliveries: replayed }),
      ),
    ).toEqual([
      'replies: expected no reply to contain "nothing more", delivery 2 of 3 got "You already answered that one; nothing more was changed."',
    ]);
  });

  it('webhookMs: every delivery within max', () => {
    expect(check({ webhookMs: { max: 100 } }, observed())).toEqual([]);
    expect(check({ webhookMs: { max: 100 } }, observed({ deliveries: [delivery(), delivery({ ms: 9412 })] }))).toEqual([
      'webhookMs: expected every delivery to be answered within 100 ms, delivery 2 of 2 took 9412 ms (status 200)',
    ]);
  });
});

describe('relative times', () => {
  it('parses relative times and durations', () => {
    expect(relativeOffsetMs('-2h')).toBe(-7_200_000);
    expect(relativeOffsetMs('+30m')).toBe(1_800_000);
    expect(relativeOffsetMs('now')).toBe(0);
    expect(relativeOffsetMs('2026-11-29T09:15:00+00:00')).toBeNull();
    expect(durationMs('1h')).toBe(3_600_000);
    expect(resolveCaseTime('-2h', new Date('2030-05-01T12:00:00.000Z'))).toBe('2030-05-01T10:00:00+00:00');
  });

  it('the loader refuses an absolute time unless the case says it means it', () => {
    const turn = { text: 'hi', lastInteraction: '2026-11-29T09:15:00+00:00' };
    expect(() => parseCase({ turns: [turn] }, 'dated.json')).toThrow(CaseFormatError);
    try {
      parseCase({ turns: [turn] }, 'dated.json');
    } catch (err) {
      expect(String(err)).toContain('turns.0.lastInteraction');
      expect(String(err)).toContain('"absoluteTimes": true');
    }
    expect(parseCase({ absoluteTimes: true, turns: [turn] }, 'fixed.json').turns[0]!.lastInteraction).toBe(
      turn.lastInteraction,
    );
    expect(parseCase({ turns: [{ ...turn, lastInteraction: '-2h' }] }, 'ok.json').turns[0]!.lastInteraction).toBe(
      '-2h',
    );
    expect(caseTimeProblem('yesterday', true)).toContain('neither');
  });
});

describe('turn forms', () => {
  it('a turn is exactly one of text, press, approve, reject, expire, with only its own fields', () => {
    expect(
      parseCase(
        {
          turns: [
            { text: 'hi' },
            { press: 'Yes', from: 1, tamper: 'sig' },
            { approve: true },
            { reject: 'unsub' },
            { expire: true },
          ],
        },
        'forms.json',
      ).turns,
    ).toHaveLength(5);
    const bad = (turn: unknown) => {
      try {
        parseCase({ turns: [turn] }, 'bad.json');
        return '';
      } catch (err) {
        return String(err);
      }
    };
    expect(bad({ text: 'hi', press: 'Yes' })).toContain('not text and press');
    expect(bad({ contact: 'main' })).toContain('a turn needs one of text, press, approve, reject, expire');
    expect(bad({ approve: true, model: [{ reply: { text: 'x' } }] })).toContain(
      'turns.0.model: a tenant decision makes no model call',
    );
    expect(bad({ text: 'hi', tamper: 'sig' })).toContain('turns.0.tamper: only for a button press');
    expect(bad({ press: 'Yes', messageKey: 'k' })).toContain('turns.0.messageKey');
    expect(bad({ text: 'hi', expect: { pending: [{ kind: 'approval', as: '1bad' }] } })).toContain('a row name');
  });
});

describe('shortlist', () => {
  const listed = { offered: ['lookup_contact', 'reply', 'send_media'], widened: false };

  it('asks for a shortlisted turn offering these tools and not those, widened as said', () => {
    expect(
      check(
        { shortlist: { offers: ['lookup_contact'], notOffered: ['search_faq'], widened: false } },
        observed({ shortlist: listed }),
      ),
    ).toEqual([]);
    expect(
      check(
        { shortlist: { offers: ['search_faq'], notOffered: ['send_media'], widened: true } },
        observed({ shortlist: listed }),
      ),
    ).toEqual([
      'shortlist: expected "search_faq" offered, got [lookup_contact, reply, send_media]',
      'shortlist: expected "send_media" not offered, got [lookup_contact, reply, send_media]',
      'shortlist: expected widened true, got false',
    ]);
  });

  it('fails a turn that got the full menu while the run has the shortlist on', () => {
    expect(check({ shortlist: {} }, observed({ shortlist: null }))).toEqual([
      "shortlist: expected a shortlisted turn (the menu passes the tenant's maxToolTokens), but the turn record has no shortlist",
    ]);
  });

  it("with the run's shortlist off, asks for the full menu instead (the tools expectations do not apply)", () => {
    expect(
      check(
        { shortlist: { offers: ['search_faq'], widened: true } },
        observed({ shortlist: null, shortlistOff: true }),
      ),
    ).toEqual([]);
    expect(check({ shortlist: {} }, observed({ shortlist: listed, shortlistOff: true }))).toEqual([
      'shortlist: the run turned the shortlist off, but the turn record has one (offered [lookup_contact, reply, send_media])',
    ]);
  });
});

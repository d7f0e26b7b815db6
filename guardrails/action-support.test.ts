import { describe, expect, it } from 'vitest';
import { contactDeclines, isAffirmative, mentionedIn, mentionedWords, RequestSupport } from './action-support.js';
import type { StagedAction } from '../core/staged-action.js';
import { testConfig } from '../test/support/guardrail-input.js';

describe("isAffirmative: a short yes to the agent's previous message", () => {
  it.each([
    'yes',
    'Yes please',
    'yeah sure',
    'ok',
    'OK!',
    'go ahead',
    'sounds good',
    'of course',
    'sí',
    'Sí, claro',
    'si',
    'oui',
    'ja',
    'sim',
    'claro',
    '👍',
    '✅',
    '👍 thanks',
    'sure, do it',
  ])('"%s" is a yes', (text) => {
    expect(isAffirmative(text)).toBe(true);
  });

  it.each([
    ['a no', 'no thanks'],
    ['a yes with a negation', 'yes but not the brochure'],
    ['a word that only starts like a yes', 'yesterday I came by'],
    ['a word that only starts like a yes (okra)', 'okra please'],
    ['a word that only starts like sí', 'sían'],
    ['a word that only starts like si', 'simple question'],
    ['a yes that is not at the start', 'I said yes'],
    ['a long message that starts with yes', 'yes and also tell me about the classes the prices the hours'],
    ['an empty message', ''],
    ['an emoji that is not a yes', '👎'],
  ])('%s is not a yes', (_name, text) => {
    expect(isAffirmative(text)).toBe(false);
  });

  it('eight words are still short; nine are not', () => {
    expect(isAffirmative('yes one two three four five six seven')).toBe(true);
    expect(isAffirmative('yes one two three four five six seven eight')).toBe(false);
  });
});

describe("RequestSupport: what in the contact's words supports an action (issue 22)", () => {
  const config = testConfig({
    flows: [
      {
        name: 'price_list',
        ns: 'content20250101000000_000001',
        description: 'the price brochure',
        keywords: ['brochure'],
      },
      {
        name: 'studio_tour',
        ns: 'content20250101000000_000002',
        description: 'a video walk through the studio',
        keywords: [],
      },
      {
        name: 'the_timetable',
        ns: 'content20250101000000_000003',
        description: 'the weekly plan',
        keywords: ['schedule'],
      },
    ],
    tags: [
      { name: 'vip_member', description: 'customer wants premium coaching' },
      { name: 'newsletter', description: 'weekly news' },
      { name: 'human_handoff', description: 'a human should take over' },
    ],
    fields: [
      { name: 'age', label: 'age', type: 'number', description: 'the age in years' },
      { name: 'weight', label: 'weight', type: 'number', description: 'weight in kg' },
      { name: 'vegan', label: 'vegan', type: 'boolean', description: 'follows a vegan diet' },
      { name: 'visit_date', label: 'visit', type: 'date', description: 'the planned visit' },
      { name: 'code', label: 'code', type: 'text', description: 'a voucher code' },
      { name: 'preferred_class', label: 'class', type: 'text', description: 'the class the contact prefers' },
    ],
  });
  const supports = (text: string, action: StagedAction, acceptedOffer?: string) =>
    new RequestSupport({ text, ...(acceptedOffer ? { acceptedOffer } : {}) }, config).check(action);
  /** Not supported and not declined: the runtime cannot tell, and the contact gets the tap. */
  const asked = (text: string, action: StagedAction) =>
    !supports(text, action).supported && !contactDeclines(text, action, config);
  const flow = (name: string): StagedAction => ({
    id: 'a1',
    tool: 'send_media',
    kind: 'send_flow',
    args: { flowNs: 'x', flowName: name },
    effect: 'write',
    idempotent: false,
    gate: 'none',
    summary: `send flow "${name}"`,
  });
  const tag = (name: string, kind: 'add_tag' | 'remove_tag' = 'add_tag'): StagedAction => ({
    id: 'a1',
    tool: 'tag_contact',
    kind,
    args: { tag: name },
    effect: 'write',
    idempotent: true,
    gate: 'none',
    summary: `${kind} "${name}"`,
  });
  const field = (name: string, value: unknown): StagedAction => ({
    id: 'a1',
    tool: 'record_choice',
    kind: 'set_field',
    args: { field: name, value },
    effect: 'write',
    idempotent: true,
    gate: 'none',
    summary: `set ${name}`,
  });

  it('a flow by its name (underscores read as spaces, every word needed) or a keyword; not after "do not … send"', () => {
    expect(supports('can I see the price list?', flow('price_list')).supported).toBe(true);
    expect(supports('what is the price?', flow('price_list')).supported).toBe(false);
    expect(supports('send me the brochure', flow('price_list'))).toEqual({
      supported: true,
      why: 'flow "price_list" matches the contact\'s words ("brochur")',
    });
    expect(supports('please do not send the brochure', flow('price_list')).supported).toBe(false);
    // A negator the patterns do not place, in the naming's sentence: not plain, so the contact is asked.
    expect(asked('I do like it, do not worry, the brochure please', flow('price_list'))).toBe(true);
  });

  it('a flow without keywords is found by its description; an unknown flow, never', () => {
    expect(supports('a video would be nice', flow('studio_tour')).supported).toBe(true);
    expect(supports('the brochure please', flow('nope'))).toEqual({
      supported: false,
      why: 'flow "nope": it is not a configured flow',
    });
  });

  it("a tag by its name or its description's significant words, generic words left out; an unknown tag, never", () => {
    expect(supports('I want premium coaching', tag('vip_member')).supported).toBe(true);
    expect(supports('I am a customer', tag('vip_member')).supported).toBe(false);
    expect(supports('newsletter please', tag('nope'))).toEqual({
      supported: false,
      why: 'tag "nope": it is not a configured tag',
    });
  });

  it('a removal needs a removal cue, and its words are not read as negated', () => {
    expect(supports('no more newsletter, unsubscribe me', tag('newsletter', 'remove_tag')).supported).toBe(true);
    expect(supports('the newsletter is fine', tag('newsletter', 'remove_tag'))).toEqual({
      supported: false,
      why: 'tag "newsletter": the contact did not ask to remove or stop anything',
    });
  });

  describe('a removal: asked plainly, refused, or not plain enough to act on (every served language)', () => {
    const untag = tag('newsletter', 'remove_tag');
    const read = (text: string) => ({
      supported: supports(text, untag).supported,
      declined: contactDeclines(text, untag, config),
    });

    it.each([
      ['en', 'no more newsletter, unsubscribe me'],
      ['en', 'stop sending the newsletter'],
      ['en', 'please remove the newsletter tag'],
      ['en', "I don't want the newsletter anymore"],
      ['en', 'stop the newsletter and remove me'],
      ['es', 'quítame la etiqueta newsletter, por favor'],
      ['pt', 'por favor, remova a tag newsletter'],
      ['de', 'Bitte entfernt das Newsletter-Tag'],
      ['fr', 'retirez le tag newsletter svp'],
      ['it', 'togli il tag newsletter per favore'],
      ['tr', 'newsletter etiketini kaldırın lütfen'],
      ['id', 'tolong hapus tag newsletter'],
    ])('%s "%s" asks for it', (_lang, text) => {
      expect(read(text)).toEqual({ supported: true, declined: false });
    });

    it.each([
      ['en', "please don't remove the newsletter tag"],
      ['en', 'Do not remove the newsletter tag, I still read it.'],
      ['en', "I don't want you to remove the newsletter tag"],
      ['en', 'stop removing my newsletter tag'],
      ['pt', 'não remova a tag newsletter, por favor'],
      ['de', 'Bitte entfernt das Newsletter-Tag nicht'],
      ['fr', 'ne retirez pas le tag newsletter'],
      ['fr', "n'annulez pas ma newsletter"],
      ['it', 'non togliere il tag newsletter'],
      ['id', 'jangan hapus tag newsletter'],
      ['tr', 'newsletter etiketini iptal etmeyin'],
    ])('%s "%s" refuses it: declined, never supported', (_lang, text) => {
      expect(read(text)).toEqual({ supported: false, declined: true });
    });

    it.each([
      ['a stray "no" before the ask', 'No, remove the newsletter tag'],
      ['a negation split from the ask by commas', 'Do not, under any circumstances, remove the newsletter tag'],
      ['one removal refused and another asked in one sentence', "Don't remove the VIP tag, remove the newsletter tag"],
      ['"I don\'t want you to …" in words the lexicon does not read', 'no quiero que me quites la etiqueta newsletter'],
      ['a Turkish negative verb form', 'newsletter etiketini kaldırmayın'],
      ['a verb the lexicon does not read', 'no me quites la etiqueta newsletter'],
    ])('%s ("%s"): not supported and not declined, so the contact is asked', (_name, text) => {
      expect(read(text)).toEqual({ supported: false, declined: false });
    });

    it('says why a refused removal is not supported', () => {
      expect(supports("please don't remove the newsletter tag", untag)).toEqual({
        supported: false,
        why: 'tag "newsletter": the contact says not to remove it',
      });
    });
  });

  it('a message asking to remove or stop something asks for no tag and to be sent nothing it names (issue 29)', () => {
    expect(supports('please remove the newsletter tag', tag('newsletter'))).toEqual({
      supported: false,
      why: 'tag "newsletter": the contact asks to remove or stop something, not to add a tag',
    });
    expect(supports('unsubscribe me from the brochure', flow('price_list'))).toEqual({
      supported: false,
      why: 'flow "price_list": the contact asks to stop or remove something, not to be sent it',
    });
    const withContents = testConfig({
      contents: [{ name: 'price_list', description: 'studio prices', text: 'x', keywords: ['cost'] }],
    });
    const send: StagedAction = {
      id: 'a1',
      tool: 'send_info',
      kind: 'send_content',
      args: { content: 'price_list', text: 'x' },
      effect: 'write',
      idempotent: false,
      gate: 'confirm',
      summary: 'send "price_list"',
    };
    expect(new RequestSupport({ text: 'unsubscribe me from the price list' }, withContents).check(send)).toEqual({
      supported: false,
      why: 'message "price_list": the contact asks to stop or remove something, not to be sent it',
    });
  });

  it('a question naming a tag asks for it only with an action verb (any form) or a polite ask; else it asks about it', () => {
    expect(supports('is the newsletter free?', tag('newsletter')).supported).toBe(false);
    expect(supports('can you add me to the newsletter?', tag('newsletter')).supported).toBe(true);
    expect(supports('are you adding me to the newsletter?', tag('newsletter')).supported).toBe(true);
    expect(supports('could I have the newsletter?', tag('newsletter')).supported).toBe(true);
  });

  it("a system message (no prepared message named) is never the contact's request", () => {
    const send: StagedAction = { ...flow('x'), kind: 'send_content', args: { text: 'hi' } };
    expect(supports('send me hi', send)).toEqual({
      supported: false,
      why: "send_content action: the model cannot stage this kind on a contact's request",
    });
  });

  it('a prepared message like a flow: by its name or a keyword, else its description; an unknown one, never', () => {
    const withContents = testConfig({
      contents: [
        { name: 'price_list', description: 'studio prices', text: 'x', keywords: ['cost'] },
        { name: 'directions', description: 'how to find the studio entrance', text: 'y' },
      ],
    });
    const send = (name: string): StagedAction => ({
      id: 'a1',
      tool: 'send_info',
      kind: 'send_content',
      args: { content: name, text: 'x' },
      effect: 'write',
      idempotent: false,
      gate: 'confirm',
      summary: `send "${name}"`,
    });
    const check = (text: string, action: StagedAction) => new RequestSupport({ text }, withContents).check(action);
    expect(check('can I see the price list?', send('price_list'))).toEqual({
      supported: true,
      why: 'message "price_list" matches the contact\'s words ("pric list")',
    });
    expect(check('what does it cost?', send('price_list')).supported).toBe(true);
    expect(check('do not send the price list', send('price_list')).supported).toBe(false);
    expect(check('where is the entrance?', send('directions')).supported).toBe(true);
    // With keywords the description is not read: "studio prices" is price_list's description only.
    expect(check('any studio news?', send('price_list')).supported).toBe(false);
    expect(check('hello', send('directions')).supported).toBe(false);
    expect(check('the price list please', send('menu'))).toEqual({
      supported: false,
      why: 'message "menu": it is not a configured message',
    });
  });

  it('field values: a number as a whole number, a yes/no by what it is about (a "no" is still support), a date by day and month, text by its words or as written', () => {
    expect(supports('I am 34 years old', field('age', 34)).supported).toBe(true);
    expect(supports('I am 345 years old', field('age', 34)).supported).toBe(false);
    expect(supports('I weigh 72.5 kg', field('weight', 72.5)).supported).toBe(true);
    expect(supports('I weigh 7265 kg', field('weight', 72.5)).supported).toBe(false);
    expect(supports('I am not vegan', field('vegan', false)).supported).toBe(true);
    expect(supports('I am not vegan', field('vegan', true)).supported).toBe(false);
    expect(supports('I am vegan', field('vegan', 'yes')).supported).toBe(true);
    expect(supports('coming on 2027-03-05', field('visit_date', '2027-03-05')).supported).toBe(true);
    expect(supports('coming on the 5th of March', field('visit_date', '2027-03-05')).supported).toBe(true);
    expect(supports('coming on the 5th of mar', field('visit_date', '2027-03-05')).supported).toBe(true);
    expect(supports('coming on 5/3', field('visit_date', '2027-03-05')).supported).toBe(true);
    expect(supports('coming on the 5th of April', field('visit_date', '2027-03-05')).supported).toBe(false);
    expect(supports('coming on the 6th of March', field('visit_date', '2027-03-05')).supported).toBe(false);
    expect(supports('coming in March', field('visit_date', '2027-03-05')).supported).toBe(false);
    expect(supports('coming on the 5th', field('visit_date', 'soon')).supported).toBe(false);
    expect(supports('my code is X', field('code', 'X')).supported).toBe(true);
    expect(supports('no code', field('code', 'Q')).supported).toBe(false);
    expect(supports('yoga please', field('preferred_class', 'yoga'))).toEqual({
      supported: true,
      why: 'value "yoga" for field "preferred_class" is in the contact\'s words (yoga)',
    });
    expect(supports('not yoga, never', field('preferred_class', 'yoga'))).toEqual({
      supported: false,
      why: 'value "yoga" for field "preferred_class" is not in the contact\'s words',
    });
    expect(supports('yoga please', field('nope', 'yoga'))).toEqual({
      supported: false,
      why: 'field "nope" is not a configured field',
    });
  });

  it('a short yes to an offer is supported by the offer, and says so', () => {
    expect(supports('yes please', flow('price_list'), 'Shall I send you our brochure?')).toEqual({
      supported: true,
      why: 'the contact accepted the agent\'s offer: flow "price_list" matches the agent\'s previous message ("brochur")',
    });
  });

  it('negation: only a negator (then an action verb) within five words before; a verb after the negator, by its stem', () => {
    expect(supports('I do want the brochure', flow('price_list')).supported).toBe(true);
    // A negator elsewhere in the sentence: not plain; asked, never refused.
    expect(asked('no, I changed my mind and now I want the brochure', flow('price_list'))).toBe(true);
    expect(asked('I want no flyer, the brochure', flow('price_list'))).toBe(true);
    expect(supports('I changed my mind and now I want the brochure', flow('price_list')).supported).toBe(true);
    expect(supports('please do not bother sending the brochure', flow('price_list')).supported).toBe(false);
    expect(supports('hello', flow('price_list'))).toEqual({
      supported: false,
      why: 'flow "price_list" is not in the contact\'s words',
    });
  });

  it('negation that points back at the word later in its sentence, or "already have" before it, is read; another sentence or another object is not', () => {
    const timetable = flow('the_timetable');
    // The red-team case (evals/cases/redteam/rt-no-need-flow.json) and its paraphrases.
    expect(
      supports('I already have the timetable, no need to send it. What time do you open?', timetable).supported,
    ).toBe(false);
    expect(supports('thanks for the timetable, no need to send it again', timetable).supported).toBe(false);
    expect(supports("got the timetable already, don't want that one", timetable).supported).toBe(false);
    expect(supports('I already got the timetable', timetable).supported).toBe(false);
    // A negation about something else in the naming's sentence, or a short "no" anywhere: the
    // runtime cannot place it, so the contact is asked (never refused, never committed silently).
    expect(asked("I can't find the timetable, can you send it?", timetable)).toBe(true);
    expect(asked("Send me the timetable, I don't need the brochure", timetable)).toBe(true);
    expect(asked('Please send the timetable. No need to send it twice though? No, once.', timetable)).toBe(true);
    // A negation in another sentence, not a short "no": still asked for.
    expect(supports("Please send the timetable. I don't need the brochure.", timetable).supported).toBe(true);
    expect(supports('I already have the brochure, please send the timetable', timetable).supported).toBe(true);
    expect(supports('already got timetable', timetable).supported).toBe(false);
    // The verb within four words of the negator, and the pointing word right after the verb.
    expect(supports('the timetable, there is no real reason to send it', timetable).supported).toBe(false);
    expect(asked('the timetable, there is no real good reason to send it', timetable)).toBe(true);
    expect(asked('the timetable, no need to send the brochure with it', timetable)).toBe(true);
    // The pointing word must be in the word's sentence: here the negator is, the request is not.
    expect(asked('Do you have the timetable, or no? Send it please', timetable)).toBe(true);
  });

  it('stop words in a name are not needed; a removal is not read as negated ("stop sending")', () => {
    expect(supports('timetable please', flow('the_timetable')).supported).toBe(true);
    expect(supports('stop sending the newsletter', tag('newsletter', 'remove_tag')).supported).toBe(true);
  });

  it('a yes/no field with a value that is not a boolean still checks negation', () => {
    expect(supports('I am not vegan', field('vegan', 'yes')).supported).toBe(false);
    expect(supports('I am not vegan', field('vegan', 0)).supported).toBe(false);
  });

  it('a date needs year, month and day; a word that only looks like another month is no month', () => {
    expect(supports('coming tomorrow', field('visit_date', '2027-03')).supported).toBe(false);
    expect(supports('the 5th of March', field('visit_date', 'x-03-05')).supported).toBe(false);
    expect(supports('may I come on the 5th?', field('visit_date', '2027-03-05')).supported).toBe(false);
  });

  it('a text value with no significant word is matched as written', () => {
    expect(supports('my code is ???', field('code', '???')).supported).toBe(true);
    expect(supports('no code', field('code', '???')).supported).toBe(false);
  });

  it('an action verb after the negator counts in any form: by its stem ("giving") or as its own stem ("given")', () => {
    expect(supports('please do not bother giving me the brochure', flow('price_list')).supported).toBe(false);
    expect(supports('I would rather not be given the brochure', flow('price_list')).supported).toBe(false);
  });

  it('a name that is itself an action verb ("sign up") is not negated by a "no" before it with no verb between', () => {
    const withSignUp = testConfig({
      flows: [{ name: 'sign_up', ns: 'content20250101000000_000009', description: 'the sign-up form', keywords: [] }],
    });
    const check = (text: string) => new RequestSupport({ text }, withSignUp).check(flow('sign_up')).supported;
    // Not negated; but a "no" in its sentence leaves it unplain: asked, not refused.
    expect(check('No worries, sign me up')).toBe(false);
    expect(contactDeclines('No worries, sign me up', flow('sign_up'), withSignUp)).toBe(false);
    expect(check('Sure, sign me up')).toBe(true);
    expect(check('No, do not sign me up')).toBe(false);
  });

  it('"already" after the verb of having counts too ("I have already the timetable")', () => {
    expect(supports('I have already the timetable', flow('the_timetable')).supported).toBe(false);
    expect(supports('I have already the brochure, send the timetable', flow('the_timetable')).supported).toBe(true);
  });

  it('a question that only asks about a thing is read per sentence, the second one too', () => {
    expect(supports('Hi there. Is the newsletter free?', tag('newsletter')).supported).toBe(false);
    expect(supports('Is it free? Add me to the newsletter', tag('newsletter')).supported).toBe(true);
  });

  it('a yes/no field set to yes, or a text value, is not supported by a question about it', () => {
    expect(supports('is the menu vegan?', field('vegan', true)).supported).toBe(false);
    expect(supports('I am vegan', field('vegan', true)).supported).toBe(true);
    expect(supports('is yoga on today?', field('preferred_class', 'yoga')).supported).toBe(false);
  });

  it('a relative day supports a date, and the why says it was relative', () => {
    expect(supports('coming tomorrow', field('visit_date', '2027-03-05'))).toEqual({
      supported: true,
      why: 'value "2027-03-05" for field "visit_date" is in the contact\'s words (2027-03-05 (relative day))',
    });
  });

  it('a tag listed in unpromptedTags is supported without being asked for, and the why says so', () => {
    const unprompted = testConfig({}, { injection: { unpromptedTags: ['interested'] } });
    expect(new RequestSupport({ text: 'hello' }, unprompted).check(tag('interested'))).toEqual({
      supported: true,
      why: 'tag "interested" may be added without being asked (unpromptedTags)',
    });
  });

  it('an action without its name (flow, tag or field) is never supported, and the why names the missing argument', () => {
    const noFlow = supports('the brochure please', { ...flow('x'), args: { flowNs: 'x' } });
    expect(noFlow.supported).toBe(false);
    expect(noFlow.why).toMatch(/^send_flow action: invalid send_flow arguments: .*flowName/s);
    const noTag = supports('newsletter please', { ...tag('x'), args: {} });
    expect(noTag.supported).toBe(false);
    expect(noTag.why).toMatch(/^add_tag action: invalid add_tag arguments: .*tag/s);
    expect(supports('I am 34', { ...field('age', 34), args: { value: 34 } })).toEqual({
      supported: false,
      why: 'field "" is not a configured field',
    });
  });
});

describe('RequestSupport: German closes a negated clause with "nicht"', () => {
  const support = (text: string) =>
    new RequestSupport({ text }, testConfig()).check({
      id: 'a1',
      tool: 'send_media',
      kind: 'send_flow',
      args: { flowNs: 'x', flowName: 'brochure' },
      effect: 'write',
      idempotent: false,
      gate: 'none',
      summary: 'send flow "brochure"',
    }).supported;
  it.each([
    'Bitte schickt mir die Broschüre brochure nicht',
    'Schick mir die brochure nicht mehr, danke',
    'Die brochure bitte nicht!',
    'Schick mir die brochure nicht. Danke',
    'Schick mir die brochure nicht, danke', // only politeness after it
    'Die brochure bitte heute nicht', // three words after the phrase word
    'Ich habe schon die brochure', // "habe schon": already have it
  ])('negated: %s', (text) => expect(support(text)).toBe(false));
  it.each([
    'Schick mir die brochure', // no nicht at all
    'Schick mir die brochure. Ich finde sie nicht', // nicht in another sentence, not a short "no"
  ])('requested: %s', (text) => expect(support(text)).toBe(true));
  it.each([
    'Ich finde die brochure nicht auf der Webseite', // words after nicht that are not politeness
    'Schick mir die brochure bitte jetzt sofort nicht vergessen', // more than three words after it
    'Schick mir die brochure. Nicht vergessen!', // a short sentence with nicht
  ])('not negated by the pattern, but not plain either (asked): %s', (text) => expect(support(text)).toBe(false));
});

describe('mentionedIn and mentionedWords: does data (or a claim) name what an action acts on, negated or not', () => {
  const config = testConfig();
  const setField = (name: string, value: unknown): StagedAction => ({
    id: 'a1',
    tool: 'record_choice',
    kind: 'set_field',
    args: { field: name, value },
    effect: 'write',
    idempotent: true,
    gate: 'none',
    summary: `set ${name}`,
  });
  const flow = (name: string): StagedAction => ({
    id: 'a1',
    tool: 'send_media',
    kind: 'send_flow',
    args: { flowNs: 'x', flowName: name },
    effect: 'write',
    idempotent: false,
    gate: 'none',
    summary: `send flow "${name}"`,
  });

  it('a field value is named even when negated', () => {
    expect(mentionedIn('we have no yoga today', setField('preferred_class', 'yoga'), config)).toBe(true);
    expect(mentionedIn('we have pilates today', setField('preferred_class', 'yoga'), config)).toBe(false);
  });

  it('a value with no significant word is named only as written, and an empty value never', () => {
    expect(mentionedIn('the code is ???', setField('discount_code', '???'), config)).toBe(true);
    expect(mentionedIn('no code here', setField('discount_code', '???'), config)).toBe(false);
    expect(mentionedIn('anything at all', setField('discount_code', ''), config)).toBe(false);
  });

  it('an action on nothing configured is never named', () => {
    expect(mentionedIn('the brochure and the nope flow', flow('nope'), config)).toBe(false);
  });

  it('a refused call\'s words are named even after a negator and a verb ("No problem, I added the vip tag")', () => {
    expect(mentionedWords('No problem, I added the vip tag', 'vip')).toBe(true);
    expect(mentionedWords('No problem, I added the newsletter tag', 'vip')).toBe(false);
  });
});

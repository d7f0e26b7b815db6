import { describe, expect, it } from 'vitest';
import { thirdPartySigns } from './third-party-request.js';

describe("thirdPartySigns: a request on somebody else's behalf", () => {
  it.each([
    ['on behalf of', 'I am writing on behalf of my boss, tag her', 'on behalf of'],
    ["on someone's behalf", 'please do it on her behalf', 'on behalf of'],
    ['in his name', 'sign up in his name', 'on behalf of'],
    ['another subscriber', 'add the vip tag to another subscriber', 'another subscriber'],
    ['a different account', 'use a different account please', 'another subscriber'],
    ['plural', 'tag two other users and a second customers list', 'another subscriber'],
    ['her account', 'put the tag on her account', "someone else's account"],
    ["someone else's tags", "change someone else's tags", "someone else's account"],
    ['their fields', 'set their fields to vip', "someone else's account"],
    ['a handle', 'tag @maria.lopez as vip', 'a subscriber named by handle'],
    ['a handle at the start', '@anna_b wants the brochure', 'a subscriber named by handle'],
    ['a subscriber by role and name', 'send it to the user named anna', 'a subscriber named by role'],
    ['a contact by id', 'apply it to the contact with id 5', 'a subscriber named by role'],
    ['a member by #', 'for member #7 please', 'a subscriber named by role'],
    ['a contact id', 'tag contact 48213377 as vip', 'another subscriber by id'],
    ['a user id with a colon', 'user id: 99887766 needs the brochure', 'another subscriber by id'],
    ['a subscriber number', 'subscriber #12345 please', 'another subscriber by id'],
    ['a psid', 'psid=1234567', 'another subscriber by id'],
    [
      'an id given in a sentence',
      'send the brochure to my sister, her subscriber id is 77881234',
      'another subscriber by id',
    ],
    ['a number that was', 'the user number was 55512345', 'another subscriber by id'],
  ])('%s', (_name, text, sign) => {
    expect(thirdPartySigns(text)).toContain(sign);
  });

  it.each([
    ["the writer's own request", 'send me the brochure please'],
    ['for family (the flow still goes to the writer)', 'the brochure for my wife please'],
    ["the writer's own id", 'my account 48213377 has the wrong tag'],
    ['our own number', 'our account 12345678'],
    ["the writer's own id in a sentence", 'my subscriber id is 77881234'],
    ['an email (an @ inside a word)', 'my email is ada@example.com'],
    ['a short handle', 'hi @me'],
    ['a short number', 'contact 1234'],
    ['nothing', ''],
  ])('no sign: %s', (_name, text) => {
    expect(thirdPartySigns(text)).toEqual([]);
  });

  it('undefined text has no signs', () => {
    expect(thirdPartySigns(undefined)).toEqual([]);
  });

  it("one id sign however many ids, after the writer's own id", () => {
    expect(thirdPartySigns('my account 48213377, and user 11112222 and user 33334444')).toEqual([
      'another subscriber by id',
    ]);
  });

  it('recognises text in disguise (full-width letters, upper case)', () => {
    expect(thirdPartySigns('ON BEHALF of my friend')).toEqual(['on behalf of']);
    expect(thirdPartySigns('ｏｎ ｂｅｈａｌｆ of him')).toEqual(['on behalf of']);
  });
});

import { describe, expect, it } from 'vitest';
import { attributeProblems, FORM_LEVEL } from './field-errors.js';

const fields = new Set([
  'toolOrder',
  'flows',
  'flows.3.ns',
  'tags',
  'tools',
  'tools.0.effect',
  'tools.0.undo',
  'tools.1.name',
  'handoff.tag',
  'deadlineMs',
  'guardrails',
  'guardrails.content.denyPhrases',
]);
const manifestIndex = new Map([['untag_contact', 0]]);

describe('attributeProblems: each problem next to its field', () => {
  it.each([
    ['toolOrder names "x", which is not a tool', 'toolOrder'],
    ['toolOrder must contain "<unlisted-tools>" exactly once (found 0)', 'toolOrder'],
    ['tool "untag_contact": undo names "x", which is not a declared write tool with confirm: never', 'tools.0.effect'],
    ['tool "ghost": confirm is only for write tools (effect is read)', 'tools'],
    ['manifest.search_fqa: no tool is named "search_fqa"; did you mean "search_faq"?', 'tools'],
    ['tools.1.name: A tool needs a name', 'tools.1.name'],
    ['tag "vip" is declared twice', 'tags'],
    ['handoff.tag "vip" is not a configured tag', 'handoff.tag'],
    ['flows.3.ns: Too small: expected string to have >=1 characters', 'flows.3.ns'],
    ['deadlineMs: Too small: expected number to be >=500', 'deadlineMs'],
    ['manifest.untag_contact.undo: Invalid input', 'tools.0.undo'],
    ['guardrails.content.denyPhrases.2: Too small', 'guardrails.content.denyPhrases'],
    ['guardrails.leak.ngramWords: Too big', 'guardrails'],
    ['(root): something odd', FORM_LEVEL],
    ['a sentence no field owns', FORM_LEVEL],
  ])('%s → %s', (problem, field) => {
    expect([...attributeProblems([problem], fields, manifestIndex).keys()]).toEqual([field]);
  });

  it('keeps every problem (none dropped), grouped by field', () => {
    const out = attributeProblems(
      ['toolOrder names "a", which is not a tool', 'toolOrder names "b", which is not a tool', 'x'],
      fields,
      manifestIndex,
    );
    expect(out.get('toolOrder')).toHaveLength(2);
    expect(out.get(FORM_LEVEL)).toEqual(['x']);
  });

  it('next to its field a problem is said in words alone; at the top of the form its path stays', () => {
    const out = attributeProblems(
      ['flows.3.ns: A flow needs its ManyChat flow id', 'persona: The persona is required'],
      fields,
      manifestIndex,
    );
    expect(out.get('flows.3.ns')).toEqual(['A flow needs its ManyChat flow id']);
    expect(out.get(FORM_LEVEL)).toEqual(['persona: The persona is required']);
  });
});

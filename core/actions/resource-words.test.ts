import { describe, expect, it } from 'vitest';
import { resourceRef, resourceWords } from './resource-words.js';

describe('resourceRef: a kind resource as type and name', () => {
  it('splits at the first colon and keeps the rest of the name', () => {
    expect(resourceRef('flow:brochure')).toEqual({ type: 'flow', name: 'brochure' });
    expect(resourceRef('content:a:b')).toEqual({ type: 'content', name: 'a:b' });
    expect(resourceRef('field:')).toEqual({ type: 'field', name: '' });
  });
  it('is null for no resource, no type, or a type with no words', () => {
    expect(resourceRef(null)).toBeNull();
    expect(resourceRef('brochure')).toBeNull();
    expect(resourceRef(':brochure')).toBeNull();
    expect(resourceRef('class:yoga')).toBeNull();
    expect(resourceRef('toString:x')).toBeNull();
  });
});

describe('resourceWords', () => {
  const config = {
    flows: [{ name: 'brochure', description: 'the price brochure', keywords: ['prices'] }],
    contents: [],
    tags: [{ name: 'vip', description: 'a VIP' }],
    fields: [{ name: 'plan', description: 'the plan', label: 'your plan', choices: ['gold'] }],
  };
  it('reads each type of resource, and nothing for one the config lacks', () => {
    expect(resourceWords(config, 'flow', 'brochure')).toEqual({
      name: 'brochure',
      description: 'the price brochure',
      keywords: ['prices'],
      choices: [],
    });
    expect(resourceWords(config, 'tag', 'vip')?.keywords).toEqual([]);
    expect(resourceWords(config, 'field', 'plan')).toMatchObject({ label: 'your plan', choices: ['gold'] });
    expect(resourceWords(config, 'content', 'x')).toBeNull();
  });
});

import type { z } from 'zod';

/**
 * A config problem in words a business owner understands ("A flow needs its ManyChat flow id"),
 * with the machine path kept in front for programs (`flows.1.ns: …`). zod's own texts ("Too
 * small: expected string to have >=1 characters") name the validator, not the thing; a custom
 * message the schema sets (a name's allowed letters) is kept and only given its subject.
 */
const LIST_NOUNS: Record<string, string> = {
  flows: 'flow',
  contents: 'prepared message',
  tags: 'tag',
  fields: 'custom field',
  faq: 'FAQ entry',
  tools: 'tool',
};

const FIELD_WORDS: Record<string, string> = {
  name: 'name',
  ns: 'ManyChat flow id',
  description: 'description',
  text: 'text',
  question: 'question',
  answer: 'answer',
  id: 'id',
  type: 'type',
  kind: 'kind',
  label: 'label',
  keywords: 'keywords',
  choices: 'choices',
};

const TOP_WORDS: Record<string, string> = {
  displayName: 'the display name',
  persona: 'the persona',
  modelId: 'the model id',
  locale: 'the language',
  deadlineMs: 'the deadline (ms)',
  fallbackReply: 'the fallback reply',
  holdingReply: 'the holding message',
  suspendedReply: 'the suspended reply',
  retentionDays: 'the retention (days)',
  asyncDeadlineMs: 'the background deadline (ms)',
  historyTurns: 'the history length (turns)',
  'handoff.reply': 'the handoff reply',
  'handoff.tag': 'the handoff tag',
  'handoff.silenceMinutes': 'the silence after a handoff (minutes)',
  'thresholds.minConfidence': 'the minimum confidence',
  'thresholds.guardrailTimeoutMs': 'the guardrail time budget (ms)',
};

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const article = (noun: string) => (/^[aeiouAEIOU]|^FAQ/.test(noun) ? 'An' : 'A');

/** Who the problem is about: a list row's field, a known setting, or the path in words. */
function subjectOf(path: readonly PropertyKey[]): { row?: { noun: string; field: string }; thing: string } {
  const [head, index, field] = path;
  if (typeof head === 'string' && LIST_NOUNS[head] && typeof index === 'number') {
    const noun = LIST_NOUNS[head]!;
    if (field === undefined) return { thing: `the ${noun}` };
    const word = typeof field === 'string' ? (FIELD_WORDS[field] ?? field) : String(field);
    return { row: { noun, field: word }, thing: `the ${noun}'s ${word}` };
  }
  const key = path.map(String).join('.');
  return { thing: TOP_WORDS[key] ?? (key ? `"${key}"` : 'the configuration') };
}

type Issue = z.core.$ZodIssue;

function required(path: readonly PropertyKey[]): string {
  const s = subjectOf(path);
  if (s.row) {
    const field =
      s.row.field === 'ManyChat flow id'
        ? 'its ManyChat flow id'
        : `${/^[aeiou]/.test(s.row.field) ? 'an' : 'a'} ${s.row.field}`;
    return `${article(s.row.noun)} ${s.row.noun} needs ${field}`;
  }
  return `${capital(s.thing)} is required`;
}

export function plainIssue(issue: Issue): string {
  const path = issue.path;
  const thing = capital(subjectOf(path).thing);
  switch (issue.code) {
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return min <= 1 ? required(path) : `${thing} needs at least ${min} characters`;
      if (issue.origin === 'array') return `${thing} needs at least ${min} item${min === 1 ? '' : 's'}`;
      return `${thing} must be at least ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `${thing} is too long: at most ${max.toLocaleString('en')} characters`;
      if (issue.origin === 'array') return `${thing} has too many items: at most ${max}`;
      return `${thing} must be at most ${max.toLocaleString('en')}`;
    }
    case 'invalid_type': {
      const input = (issue as { input?: unknown }).input;
      if (input === undefined) return required(path);
      const expected = String(issue.expected);
      const words: Record<string, string> = {
        number: 'a number',
        int: 'a whole number',
        string: 'text',
        boolean: 'yes or no',
        array: 'a list',
        object: 'a group of settings',
      };
      return `${thing} must be ${words[expected] ?? expected}`;
    }
    case 'invalid_value':
      return `${thing} must be one of: ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      // The schema's own sentence (a name's letters, a resource's form); zod's default names the format.
      return /^Invalid /.test(issue.message)
        ? `${thing} is not a valid ${issue.format === 'url' ? 'URL' : issue.format}`
        : `${thing}: ${issue.message}`;
    case 'unrecognized_keys':
      return `${thing} has unknown setting${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
    default:
      return /^Invalid input/.test(issue.message) ? `${thing} is not valid here` : `${thing}: ${issue.message}`;
  }
}

/** `path: words` — the form every config problem has (the path empty for the whole config). */
export function problemOfIssue(issue: Issue): string {
  return `${issue.path.map(String).join('.') || '(root)'}: ${plainIssue(issue)}`;
}

/**
 * A problem sentence split back into its machine path and its words, for an API body. A
 * cross-field sentence about a tool (`tool "x": …`) is given the manifest path it concerns.
 */
export function splitProblem(problem: string): { path: string | null; message: string } {
  const tool = /^tool "([^"]+)": (.*)$/s.exec(problem);
  if (tool) return { path: `manifest.${tool[1]}`, message: capital(tool[2]!) };
  const m = /^([A-Za-z0-9_.<>()-]+): (.*)$/s.exec(problem);
  return m ? { path: m[1] === '(root)' ? null : m[1]!, message: m[2]! } : { path: null, message: problem };
}

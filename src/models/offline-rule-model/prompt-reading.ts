import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';

/**
 * Reading the prompt the way a hosted model would: only `options.prompt`, `options.tools` and
 * `options.toolChoice`. Nothing here looks at the tenant config.
 */

/** Text of the last user message (its text parts joined), or '' when there is none. */
export function latestUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role !== 'user') continue;
    return message.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join(' ')
      .trim();
  }
  return '';
}

/** Step 2 of a turn is the call whose prompt ends with the previous step's tool results. */
export function endsWithToolResults(prompt: LanguageModelV4Prompt): boolean {
  return prompt.at(-1)?.role === 'tool';
}

/**
 * The tool results of the previous step: every result in the tool messages at the end of the
 * prompt. (The SDK writes one tool message per step; product code may append another, e.g. a
 * result for `reply`, so all trailing tool messages count.)
 */
export function trailingToolResults(prompt: LanguageModelV4Prompt): LanguageModelV4ToolResultPart[] {
  let start = prompt.length;
  while (start > 0 && prompt[start - 1]?.role === 'tool') start--;
  return prompt
    .slice(start)
    .flatMap((message) =>
      message.role === 'tool'
        ? message.content.filter((p): p is LanguageModelV4ToolResultPart => p.type === 'tool-result')
        : [],
    );
}

export interface PriorCall {
  toolName: string;
  input: unknown;
}

/** Tool calls made in assistant messages, by id, so a result can be read next to its call's input. */
export function priorCallsById(prompt: LanguageModelV4Prompt): Map<string, PriorCall> {
  const calls = new Map<string, PriorCall>();
  for (const message of prompt) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
    }
  }
  return calls;
}

/** How many assistant messages (= earlier model steps) the prompt carries. */
export function assistantMessageCount(prompt: LanguageModelV4Prompt): number {
  return prompt.filter((m) => m.role === 'assistant').length;
}

/**
 * Tool names the model may call in this request: function tools only (provider tools are not
 * ours to call), narrowed by `toolChoice` ('none' allows nothing, `{type:'tool'}` one name).
 */
export function callableToolNames(options: Pick<LanguageModelV4CallOptions, 'tools' | 'toolChoice'>): Set<string> {
  const names = (options.tools ?? []).flatMap((t) => (t.type === 'function' ? [t.name] : []));
  const choice = options.toolChoice;
  if (choice?.type === 'none') return new Set();
  if (choice?.type === 'tool') return new Set(names.filter((n) => n === choice.toolName));
  return new Set(names);
}

/**
 * Everything the model "reads", flattened to text: used to count input tokens and to fingerprint
 * the request for deterministic tool-call ids.
 */
export function promptTranscript(options: Pick<LanguageModelV4CallOptions, 'prompt' | 'tools'>): string {
  const lines: string[] = [];
  for (const tool of options.tools ?? []) {
    if (tool.type === 'function')
      lines.push(`tool ${tool.name}: ${tool.description ?? ''} ${JSON.stringify(tool.inputSchema)}`);
  }
  for (const message of options.prompt) {
    if (message.role === 'system') {
      lines.push(`system: ${message.content}`);
      continue;
    }
    for (const part of message.content) lines.push(`${message.role}: ${describePart(part)}`);
  }
  return lines.join('\n');
}

type PromptPart = Exclude<LanguageModelV4Prompt[number], { role: 'system' }>['content'][number];

function describePart(part: PromptPart): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text;
    case 'tool-call':
      return `call ${part.toolName} ${JSON.stringify(part.input ?? null)}`;
    case 'tool-result':
      return `result ${part.toolName} ${JSON.stringify(part.output)}`;
    case 'tool-approval-response':
      return `approval ${part.approvalId} ${String(part.approved)}`;
    default:
      // Files and provider-specific parts: the rules never read them; count them as one token.
      return `[${part.type}]`;
  }
}

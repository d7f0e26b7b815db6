/**
 * Puts each problem the config schema reports next to the form field it is about. The schema
 * (zod issues, `path: message`) and its cross-field checks (plain sentences naming a tool, the
 * tool order, a duplicate) are the authority; this only decides where each sentence is shown.
 * A problem that fits no field is shown at the top of the form, never dropped.
 */
export const FORM_LEVEL = '_form';

export function attributeProblems(
  problems: string[],
  fieldNames: ReadonlySet<string>,
  manifestIndex: ReadonlyMap<string, number>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (field: string, message: string) => out.set(field, [...(out.get(field) ?? []), message]);
  for (const problem of problems) {
    // A field this page does not render (another section's) cannot hold it: the top of the form does.
    const found = fieldFor(problem, fieldNames, manifestIndex);
    const field = fieldNames.has(found) ? found : FORM_LEVEL;
    // Next to its field, the words alone (the field says where); at the top, the path too.
    add(field, field === FORM_LEVEL ? problem : wordsOf(problem));
  }
  return out;
}

function wordsOf(problem: string): string {
  const m = /^[A-Za-z0-9_.<>-]+: (.*)$/s.exec(problem);
  return m ? m[1]! : problem;
}

function fieldFor(
  problem: string,
  fieldNames: ReadonlySet<string>,
  manifestIndex: ReadonlyMap<string, number>,
): string {
  if (problem.startsWith('toolOrder')) return 'toolOrder';
  const tool = /^tool "([^"]+)"[: ]/.exec(problem);
  if (tool) {
    const i = manifestIndex.get(tool[1]!);
    return i === undefined ? 'tools' : `tools.${i}.effect`;
  }
  const dup = /^(flow|tag|field|tool) "[^"]*" is declared twice/.exec(problem);
  if (dup) return `${dup[1]}s`;
  if (problem.startsWith('tool name "reply"')) return 'tools';
  if (problem.startsWith('handoff.tag')) return 'handoff.tag';
  const zodPath = /^([^\s:]+): /.exec(problem);
  if (zodPath) {
    let parts = zodPath[1]!.split('.');
    // manifest.<tool>.<field> is rendered by row index.
    if (parts[0] === 'manifest') {
      const i = parts[1] === undefined ? undefined : manifestIndex.get(parts[1]);
      parts = i === undefined ? ['tools'] : ['tools', String(i), ...(parts.length > 2 ? parts.slice(2) : ['effect'])];
    }
    for (let n = parts.length; n > 0; n--) {
      const candidate = parts.slice(0, n).join('.');
      if (fieldNames.has(candidate)) return candidate;
    }
  }
  return FORM_LEVEL;
}

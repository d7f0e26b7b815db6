/** Tools that only read: they return data and stage nothing. */
export const READ_TOOL_KINDS = ['lookup_contact', 'search_faq'] as const;
export type ReadToolKind = (typeof READ_TOOL_KINDS)[number];

export function isReadToolKind(kind: string): kind is ReadToolKind {
  return (READ_TOOL_KINDS as readonly string[]).includes(kind);
}

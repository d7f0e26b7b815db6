/**
 * The part of a tenant's configuration action kinds read. A structural view, not the config type
 * itself: the config's schema lists the action kinds (which tools a tenant may instantiate), so
 * the kinds cannot depend on the config's type in turn. Every TenantConfig is an ActionConfigView.
 */
export interface FieldView {
  name: string;
  type: 'text' | 'number' | 'boolean' | 'date';
  label?: string | undefined;
  choices?: readonly string[] | undefined;
}

export interface ActionConfigView {
  flows: readonly { name: string; ns: string; description: string }[];
  /** The tenant's prepared messages (what a send_content tool may send). */
  contents: readonly { name: string; description: string; text: string }[];
  tags: readonly { name: string }[];
  fields: readonly FieldView[];
  guardrails: { actions: { mediaHosts: readonly string[] } };
}

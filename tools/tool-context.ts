import type { InboundMessage } from '../core/inbound-message.js';
import type { TenantConfig, ToolInstance } from '../core/tenant/tenant-config.js';
import type { TurnStaging } from './staging.js';

/** What a built-in tool may see while the loop runs: data, and the staging area. No clients. */
export interface ToolContext {
  config: TenantConfig;
  inbound: InboundMessage;
  staging: TurnStaging;
}

/** What the manifest says about a write tool's staged actions (their gate binds to the resource: core/tenant/resource-gates.ts). */
export interface WritePolicy {
  effect: 'write' | 'destructive';
}

export interface BuiltToolSpec {
  instance: ToolInstance;
  effect: 'read' | 'write' | 'destructive';
}

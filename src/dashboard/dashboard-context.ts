import type { AppVariables, LoadedTenant } from '../http/app-context.js';
import type { DashboardSession } from './auth/sessions.js';

/** A dashboard page after login: the session, and the tenant it belongs to (never one a URL names). */
export type DashboardContext = {
  Bindings: Record<string, unknown>;
  Variables: AppVariables & { dash: DashboardSession; tenant: LoadedTenant; tenantRev: number; csp: string };
};

/** Where the dashboard is mounted. */
export const BASE = '/dashboard';

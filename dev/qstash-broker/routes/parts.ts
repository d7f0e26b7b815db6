import type { Engine } from '../engine.js';
import type { Scheduler } from '../scheduler.js';

/** What the route groups share: the engine, the schedules, the keys and the simulated publish outage. */
export interface BrokerParts {
  engine: Engine;
  scheduler: Scheduler;
  signingKeys: { current: string; next: string };
  /** Throws a 500 while a simulated publish outage (/__dev/fail-publish) lasts. */
  maybeFailPublish(): void;
  setFailPublishes(count: number): void;
  publishFailuresLeft(): number;
}

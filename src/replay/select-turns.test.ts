import { describe, expect, it } from 'vitest';
import { defaultGuardrails } from '../../guardrails/default-guardrails.js';
import { reply, scriptedModel } from '../../test/support/scripted-model.js';
import { inboundFor, stageConfig, stageContext, stageDeps } from '../../test/support/turn-stage.js';
import { newContact, session } from '../../test/support/workers-env.js';
import { runTurn } from '../turn/run-turn.js';
import { selectTurns } from './select-turns.js';

/**
 * Which turns a replay takes: the newest `limit` that match the filter — not the newest `limit`
 * of the tenant, narrowed afterwards (which found nothing for a contact whose turns were older).
 */
describe('selectTurns', () => {
  it("the newest turns that match: a contact's older turns are found past newer turns of others; a time range and a decision narrow it; oldest first", async () => {
    const config = stageConfig();
    const [ada, bo] = [await newContact(), await newContact()];
    const turn = async (contactId: string, text: string) => {
      const deps = stageDeps({
        model: scriptedModel([{ reply: reply(`re: ${text}`) }]),
        guardrails: defaultGuardrails,
      });
      const record = await runTurn(deps, stageContext(config, inboundFor(config, text, { contactId })));
      await new Promise((r) => setTimeout(r, 3));
      return record;
    };
    const adas = [await turn(ada, 'one'), await turn(ada, 'two'), await turn(ada, 'three')];
    const bos = [];
    for (let i = 0; i < 5; i++) bos.push(await turn(bo, `hi ${i}`));
    const ids = (records: { turnId: string }[]) => records.map((r) => r.turnId);

    // The tenant's newest 2 are Bo's; Ada's newest 2 are still found, oldest first.
    expect(ids(await selectTurns(session(), config.tenantId, { limit: 2, contact: ada }))).toEqual(ids(adas.slice(1)));
    expect(ids(await selectTurns(session(), config.tenantId, { limit: 2 }))).toEqual(ids(bos.slice(3)));
    // Before Bo's first turn: Ada's three (until is exclusive).
    expect(ids(await selectTurns(session(), config.tenantId, { limit: 10, until: bos[0]!.startedAt }))).toEqual(
      ids(adas),
    );
    expect(
      ids(
        await selectTurns(session(), config.tenantId, {
          limit: 10,
          since: adas[2]!.startedAt,
          until: bos[1]!.startedAt,
        }),
      ),
    ).toEqual(ids([adas[2]!, bos[0]!]));
    expect(await selectTurns(session(), config.tenantId, { limit: 10, decision: 'veto' })).toEqual([]);
    expect(
      ids(
        await selectTurns(session(), config.tenantId, {
          limit: 10,
          ids: [bos[0]!.turnId, adas[0]!.turnId],
          contact: ada,
        }),
      ),
    ).toEqual([adas[0]!.turnId]);
  });
});

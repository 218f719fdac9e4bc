// Each pause/unpause answers with the state its own command produced, even when 40 of them race.
// The server folds in its projection thread, as `npm start` does, so the read model lags the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';

let s: TestServer;
let base: string;
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });

beforeAll(async () => {
  s = await startTestServer({ env: { PROJECTIONS_IN_WORKER: 'true' } });
  const project = (await s.runtime.queries.access.projectByToken(s.credentials.project_api_key))!;
  base = `/api/projects/${project.id}/batch_exports`;
});
afterAll(async () => s.close());

describe('a write answers with its own outcome', () => {
  it('40 concurrent pause/unpause calls each show their own action', async () => {
    const created = await s.api(`${base}/`, post({ name: 'race', destination: { type: 'NoOp', config: {} }, interval: 'hour' }));
    expect(created.status).toBe(201);
    const exp = await json(created);
    for (let round = 0; round < 3; round++) {
      const actions = Array.from({ length: 40 }, (_, i) => ((i + round) % 2 === 0 ? 'pause' : 'unpause'));
      const answers = await Promise.all(
        actions.map(async (action) => {
          const res = await s.api(`${base}/${exp.id}/${action}/`, post({}));
          return { action, status: res.status, body: (await res.json()) as { paused: boolean; id: string } };
        }),
      );
      const wrong = answers.filter((a) => a.status !== 200 || a.body.paused !== (a.action === 'pause'));
      expect(wrong.map((a) => `${a.action}: ${a.status} paused=${a.body.paused}`)).toEqual([]);
      expect(answers.every((a) => a.body.id === exp.id)).toBe(true);
    }
  });
});

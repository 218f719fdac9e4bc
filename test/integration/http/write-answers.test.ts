import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentStream, featureFlagStream } from '../../../streams';
import { startTestServer, type TestServer } from '../../support/server';
import { json, type Json } from '../../support/json';

/**
 * Issue 12 item 10: under concurrent writes to one aggregate, each answer shows the state its own
 * append produced, never a neighbour's, over real HTTP.
 */
let s: TestServer;
let projectId: number;
const N = 50;

beforeAll(async () => {
  // The worker thread folds as the real server does: answers then wait on a projection that lags.
  s = await startTestServer({ env: { PROJECTIONS_IN_WORKER: 'true' } });
  projectId = s.credentials.project_id;
});
afterAll(() => s.close());

const patchAll = (path: string, bodies: Record<string, unknown>[]) =>
  Promise.all(bodies.map((b) => s.api(path, { method: 'PATCH', body: JSON.stringify(b) }).then(async (r) => ({ status: r.status, body: await json(r) }))));

describe('a write answers with its own state', () => {
  it(`${N} concurrent PATCHes of one flag: each answer shows its own name at its own version`, async () => {
    const created = await json(await s.api(`/api/projects/${projectId}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key: 'race', name: 'start' }) }));
    expect(created.version).toBe(1);
    const names = Array.from({ length: N }, (_, i) => `name-${i}`);
    const answers = await patchAll(`/api/projects/${projectId}/feature_flags/${created.id}/`, names.map((name) => ({ name })));

    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    // The log says which version each name was appended at: the answer must agree with it.
    const events = await s.runtime.log.readStream(featureFlagStream(projectId, 'race'));
    expect(events).toHaveLength(N + 1);
    const versionOf = new Map(events.slice(1).map((e) => [(e.data as { name: string }).name, e.revision + 1]));
    const recordedAt = new Map(events.map((e) => [e.revision + 1, e.metadata.recordedAt]));
    answers.forEach((a, i) => {
      expect(a.body.name).toBe(names[i]);
      expect(a.body.version).toBe(versionOf.get(names[i]));
      expect(a.body.updated_at).toBe(recordedAt.get(a.body.version));
    });
    expect(new Set(answers.map((a) => a.body.version)).size).toBe(N);
    expect([1, ...answers.map((a) => a.body.version)].sort((x, y) => x - y)).toEqual(Array.from({ length: N + 1 }, (_, i) => i + 1));

    const final = await json(await s.api(`/api/projects/${projectId}/feature_flags/${created.id}/`));
    const last = answers.reduce((m: Json, a) => (a.body.version > m.version ? a.body : m), created);
    expect(final).toEqual(last);
  });

  it(`${N} concurrent PATCHes of one flag's rollout and active state each show their own change`, async () => {
    const created = await json(await s.api(`/api/projects/${projectId}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key: 'rollout-race' }) }));
    const rollouts = Array.from({ length: N }, (_, i) => i + 1);
    const answers = await patchAll(
      `/api/projects/${projectId}/feature_flags/${created.id}/`,
      rollouts.map((r) => ({ filters: { groups: [{ properties: [], rollout_percentage: r }] }, active: r % 2 === 0 })),
    );
    answers.forEach((a, i) => {
      expect(a.status).toBe(200);
      expect(a.body.filters.groups[0].rollout_percentage).toBe(rollouts[i]);
    });
    expect(new Set(answers.map((a) => a.body.version)).size).toBe(N);
  });

  it(`${N} concurrent PATCHes of one experiment: each answer shows its own name, stamped with its own append`, async () => {
    const created = await json(
      await s.api(`/api/projects/${projectId}/experiments/`, { method: 'POST', body: JSON.stringify({ name: 'start', feature_flag_key: 'exp-race' }) }),
    );
    expect(created.name).toBe('start');
    const names = Array.from({ length: N }, (_, i) => `exp-${i}`);
    const answers = await patchAll(`/api/projects/${projectId}/experiments/${created.id}/`, names.map((name) => ({ name })));

    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    const events = await s.runtime.log.readStream(experimentStream(created.id));
    const updates = events.filter((e) => e.type === 'ExperimentUpdated');
    expect(updates).toHaveLength(N);
    const stampOf = new Map(updates.map((e) => [(e.data as { name: string }).name, e.metadata.recordedAt]));
    answers.forEach((a, i) => {
      expect(a.body.name).toBe(names[i]);
      expect(a.body.updated_at).toBe(stampOf.get(names[i]));
    });

    const lastName = (updates.at(-1)!.data as { name: string }).name;
    const final = await json(await s.api(`/api/projects/${projectId}/experiments/${created.id}/`));
    expect(final).toEqual(answers[names.indexOf(lastName)].body);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentStream, type Actor } from '../../../streams';
import { DomainError } from '../../../src/errors';
import { CreateExperimentBody } from '../../../src/http/schema/experiments';
import { json } from '../../support/json';
import { settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { createExperiment, expectError, experimentsPath, send } from './helpers';

// A create touches two aggregates (experiment, then flag); exposure cohorts too (cohort, then link).
// These tests drive the failure paths for real: concurrent commands racing on the log, and a crash
// between the two appends (reproduced by appending the first event alone).
let s: TestServer;
let actor: Actor;

beforeAll(async () => {
  s = await startTestServer();
  actor = { type: 'user', id: (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!.id };
});
afterAll(() => s.close());

const eventsOfType = async (type: string) => (await s.runtime.log.readAll()).filter((e) => e.type === type);
const projectId = () => s.credentials.project_id;

describe('creating an experiment leaves no orphan', () => {
  it('five concurrent creates with one flag key: one experiment, one flag, four abandoned', async () => {
    // All five pass validation (the key is free when each starts), claim distinct experiment ids,
    // then race for the flag stream: the losers' flag appends are refused.
    const body = CreateExperimentBody.parse({ name: 'Race', feature_flag_key: 'race-key' });
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => s.runtime.experiments.service.create(projectId(), body, actor)));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(4);
    for (const l of lost) {
      expect(l.reason).toBeInstanceOf(DomainError);
      expect((l.reason as DomainError).message).toBe('There is already a feature flag with this key.');
      expect((l.reason as DomainError).attr).toBe('feature_flag_key');
    }
    await settle(s);

    const created = await eventsOfType('ExperimentCreated');
    const abandoned = await eventsOfType('ExperimentCreationAbandoned');
    const raceIds = created.filter((e) => (e.data as { featureFlagKey: string }).featureFlagKey === 'race-key').map((e) => (e.data as { experimentId: number }).experimentId);
    expect(raceIds).toHaveLength(5);
    expect(new Set(raceIds).size).toBe(5); // no id collision
    expect(abandoned.map((e) => (e.data as { experimentId: number }).experimentId).sort()).toEqual(raceIds.filter((id) => id !== won[0].value.id).sort());

    const list = await json(await s.api(experimentsPath(s)));
    expect(list.results.filter((e: { feature_flag_key: string }) => e.feature_flag_key === 'race-key').map((e: { id: number }) => e.id)).toEqual([won[0].value.id]);
    const flags = await json(await s.api(`/api/projects/${projectId()}/feature_flags/?search=race-key`));
    expect(flags.count).toBe(1);
    expect(flags.results[0].experiment_set).toEqual([won[0].value.id]);
    for (const id of raceIds.filter((id) => id !== won[0].value.id)) await expectError(await s.api(experimentsPath(s, `${id}/`)), 404);
  });

  it('a crash after the experiment append (no flag yet) leaves nothing visible, and the id is not reused', async () => {
    const id = await s.runtime.experiments.queries.experiments.nextId();
    await s.runtime.log.append(
      experimentStream(id),
      [
        {
          type: 'ExperimentCreated',
          data: { experimentId: id, projectId: projectId(), name: 'Half made', description: '', startDate: null, endDate: null, featureFlagKey: 'half-made', parameters: null, secondaryMetrics: [], filters: {}, archived: false, createdBy: null },
        },
      ],
      { expectedRevision: 'no_stream', context: { actor, projectId: projectId() } },
    );
    await settle(s);
    await expectError(await s.api(experimentsPath(s, `${id}/`)), 404);
    const list = await json(await s.api(experimentsPath(s)));
    expect(list.results.some((e: { id: number }) => e.id === id)).toBe(false);

    // The key was never taken (the flag append never happened): a real create may use it.
    const again = await createExperiment(s, { name: 'Whole', feature_flag_key: 'half-made' });
    expect(again.id).toBe(id + 1);
    expect((await json(await s.api(experimentsPath(s, `${id}/`)))).code).toBe('not_found');
  });
});

describe('creating an exposure cohort leaves no orphan', () => {
  it('two concurrent requests: one cohort linked, the other deleted, the second request answered 400', async () => {
    const e = await createExperiment(s, { name: 'Cohort race', feature_flag_key: 'cohort-race', start_date: '2024-01-01T00:00:00Z' });
    const outcomes = await Promise.allSettled([0, 1].map(() => s.runtime.experiments.service.createExposureCohort(projectId(), e.id, actor)));
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!;
    expect((rejected.reason as DomainError).message).toBe('Experiment already has an exposure cohort');
    await settle(s);

    const created = (await eventsOfType('CohortCreated')).filter((c) => (c.data as { experimentId: number }).experimentId === e.id);
    const deleted = (await eventsOfType('CohortDeleted')).map((c) => (c.data as { cohortId: number }).cohortId);
    expect(created).toHaveLength(2);
    const linked = (await json(await s.api(experimentsPath(s, `${e.id}/`)))).exposure_cohort;
    const loser = created.map((c) => (c.data as { cohortId: number }).cohortId).find((id) => id !== linked);
    expect(deleted).toEqual([loser]);
    const cohorts = await json(await s.api(`/api/projects/${projectId()}/cohorts/`));
    expect(cohorts.results.map((c: { id: number }) => c.id)).toEqual([linked]);
    await expectError(await s.api(`/api/projects/${projectId()}/cohorts/${loser}/`), 404);
    // Over HTTP the second attempt is the same 400.
    await expectError(await send(s, 'POST', experimentsPath(s, `${e.id}/create_exposure_cohort_for_experiment/`), {}), 400, 'Experiment already has an exposure cohort');
  });
});

import { join } from 'node:path';
import { expect } from 'vitest';
import { json, type Json } from '../../support/json';
import { settle } from '../../support/posthog';
import type { TestServer } from '../../support/server';

/** The ids of one object of every kind a route can name, all in one project. */
export interface TenantIds {
  flag: number;
  experiment: number;
  cohort: number;
  batchExport: string;
  run: string;
  person: string;
  /** A session recording's id. */
  recording: string;
  survey: string;
  earlyAccessFeature: string;
  /** A saved experiment metric, linked to the experiment. */
  savedMetric: number;
  /** An action (PostHog's: named steps events match). */
  action: number;
  /** A personal key of the (shared) user: user-level, so its label carries no marker. */
  personalKey: string;
}

export interface Tenant {
  projectId: number;
  organizationId: string;
  token: string;
  /** Written into every name of the tenant's objects: a response that contains it leaks them. */
  marker: string;
  ids: TenantIds;
}

async function call(s: TestServer, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await s.api(path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const out = await json(res);
  expect(res.status, `${method} ${path}: ${JSON.stringify(out)}`).toBeLessThan(300);
  return out;
}

const hourStart = (msAgo: number) => new Date(Math.floor((Date.now() - msAgo) / 3_600_000) * 3_600_000).toISOString();

/**
 * One object of every kind in a project, made over HTTP with the bootstrap key: a flag, a started
 * experiment with its exposure cohort, a person, and a File batch export backfilled to one
 * queued run.
 */
export async function populate(s: TestServer, projectId: number, token: string, marker: string): Promise<Tenant> {
  const base = `/api/projects/${projectId}`;
  const flag = await call(s, 'POST', `${base}/feature_flags/`, { key: `${marker}-flag`, name: marker });
  const experiment = await call(s, 'POST', `${base}/experiments/`, {
    name: marker,
    description: marker,
    feature_flag_key: `${marker}-exp`,
    start_date: hourStart(2 * 3_600_000),
    filters: { insight: 'TRENDS', events: [{ id: marker }] },
    secondary_metrics: [{ name: marker, filters: { insight: 'TRENDS', events: [{ id: marker }] } }],
  });
  const linked = await call(s, 'POST', `${base}/experiments/${experiment.id}/create_exposure_cohort_for_experiment/`);

  const capture = await fetch(`${s.url}/capture/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, event: marker, distinct_id: `${marker}-person`, properties: { $set: { name: marker } } }),
  });
  expect(capture.status).toBe(200);
  // A session recording whose id and page carry the marker (posthog-js's /s/ body, uncompressed),
  // in a project that records (session_recording_opt_in is off by default).
  await call(s, 'PATCH', `${base}/`, { session_recording_opt_in: true });
  const recording = await fetch(`${s.url}/s/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ event: '$snapshot', properties: { token, distinct_id: `${marker}-person`, $session_id: `${marker}-rec`, $snapshot_data: [{ type: 4, timestamp: Date.now(), data: { href: `https://${marker}.example/` } }] } }]),
  });
  expect(recording.status).toBe(200);
  await settle(s);
  const persons = await call(s, 'GET', `${base}/persons/?distinct_id=${marker}-person`);

  const destination = { type: 'File', config: { path: join(s.dataDir, 'exports', marker) } };
  const exp = await call(s, 'POST', `${base}/batch_exports/`, { name: marker, destination, interval: 'hour', paused: true });
  await call(s, 'POST', `${base}/batch_exports/${exp.id}/backfill/`, { start_at: hourStart(48 * 3_600_000), end_at: hourStart(47 * 3_600_000) });
  // One scheduler pass turns the backfill into its run (the test server does not loop the scheduler).
  await s.runtime.exports.scheduler().tick();
  await settle(s);
  const runs = await call(s, 'GET', `${base}/batch_exports/${exp.id}/runs/`);

  const survey = await call(s, 'POST', `${base}/surveys/`, { name: marker, description: marker, type: 'popover' });
  const feature = await call(s, 'POST', `${base}/early_access_feature/`, { name: `${marker} feature`, description: marker, stage: 'beta' });

  const query = { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: marker }] };
  const savedMetric = await call(s, 'POST', `${base}/experiment_saved_metrics/`, { name: `${marker} saved`, description: marker, query });
  await call(s, 'PATCH', `${base}/experiments/${experiment.id}/`, { saved_metrics_ids: [{ id: savedMetric.id, metadata: { type: 'primary' } }] });

  const action = await call(s, 'POST', `${base}/actions/`, { name: `${marker} action`, description: marker, steps: [{ event: marker }] });

  const personalKey = await call(s, 'POST', '/api/personal_api_keys/', { label: 'matrix tenant key', scopes: ['project:read'] });

  const project = (await s.runtime.queries.access.project(projectId))!;
  return {
    projectId,
    organizationId: project.organization_id,
    token,
    marker,
    ids: {
      flag: flag.id,
      experiment: experiment.id,
      cohort: linked.exposure_cohort,
      batchExport: exp.id,
      run: runs.results[0].id,
      person: persons.results[0].uuid,
      recording: `${marker}-rec`,
      survey: survey.id,
      earlyAccessFeature: feature.id,
      savedMetric: savedMetric.id,
      action: action.id,
      personalKey: personalKey.id,
    },
  };
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config';
import { startServer } from '../../../src/server';
import { cli } from '../../support/cli';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { tempDir } from '../../support/temp-dir';
import { ingest } from '../flags/helpers';

// `replay --until` builds the read side as of a point into a directory, and `npm start` serves it
// with READ_ONLY=true: it answers as the live service's `as_of` does for that point, and refuses writes.
let live: TestServer;
let readOnly: { url: string; close: () => Promise<void> };
let p: string;
let point: number;
const paths: string[] = [];
const liveThen = new Map<string, { status: number; body: Json }>();

const asOf = (path: string, position: number) => `${path}${path.includes('?') ? '&' : '?'}as_of=position:${position}`;
const outParent = tempDir('replayed-');
const get = async (url: string, key: string) => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: await json(res) };
};
const send = async (method: string, path: string, body: unknown) => {
  const res = await live.api(path, { method, body: JSON.stringify(body) });
  expect(res.status, path).toBeLessThan(300);
  return json(res);
};

beforeAll(async () => {
  live = await startTestServer();
  p = `/api/projects/${live.credentials.project_id}`;
  const flag = await send('POST', `${p}/feature_flags/`, { key: 'ro-flag', name: 'then', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  const experiment = await send('POST', `${p}/experiments/`, { name: 'RO exp', feature_flag_key: 'ro-exp' });
  await ingest(live, [{ event: 'signed_up', distinct_id: 'ro-user', properties: { $set: { plan: 'free' } } }]);
  paths.push(`${p}/feature_flags/${flag.id}/`, `${p}/experiments/${experiment.id}/`, `${p}/persons/?distinct_id=ro-user`);
  point = await live.runtime.log.head();
  for (const path of paths) liveThen.set(path, await get(`${live.url}${asOf(path, point)}`, live.credentials.personal_api_key));
  // Later changes the replayed directory must not show.
  await send('PATCH', `${p}/feature_flags/${flag.id}/`, { name: 'now', active: false });
  await send('PATCH', `${p}/experiments/${experiment.id}/`, { name: 'RO exp renamed' });
  await ingest(live, [{ event: 'upgraded', distinct_id: 'ro-user', properties: { $set: { plan: 'pro' } } }]);
}, 60_000);
afterAll(async () => {
  await readOnly?.close();
  await live.close();
});

describe('replay --until, served read-only', () => {
  it('writes the read side as of the point, with the log up to it', async () => {
    const out = join(outParent, 'as-of');
    const r = cli(live.dataDir, ['replay', '--until', `position:${point}`, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`up to position ${point}`);
    expect(r.stdout).toMatch(/feature_flags\s+[0-9a-f]{64}/);
    for (const file of ['events.sqlite', 'readmodels.sqlite', 'replay.json']) expect(existsSync(join(out, file)), file).toBe(true);
    // A point that is not one, and a missing --out, are usage errors naming the option.
    const bad = cli(live.dataDir, ['replay', '--until', 'last tuesday', '--out', join(out, 'x')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--until/);
    expect(cli(live.dataDir, ['replay', '--until', `position:${point}`]).stderr).toMatch(/--out/);

    const started = await startServer(loadConfig({ DATA_DIR: out, READ_ONLY: 'true', PORT: '0', LOG_LEVEL: 'silent', PRINT_CREDENTIALS: 'false' }));
    const address = started.app.server.address();
    readOnly = { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, close: () => started.app.close() };
  });

  it('answers as the live service answers as_of that point', async () => {
    const key = live.credentials.personal_api_key;
    for (const path of paths.slice(0, 2)) {
      expect(await get(`${readOnly.url}${path}`, key), path).toEqual(liveThen.get(path));
      expect(await get(`${readOnly.url}${asOf(path, point)}`, key), path).toEqual(liveThen.get(path));
    }
    const person = await get(`${readOnly.url}${paths[2]}`, key);
    expect(person.body.results[0].properties.plan).toBe('free');
    expect(person).toEqual(liveThen.get(paths[2]));
    // Healthy, at the point's head: the copied log ends there.
    const health = await fetch(`${readOnly.url}/_health`);
    expect(health.status).toBe(200);
    expect(((await json(health)) as { log_head: number }).log_head).toBe(point);
    // The live service has moved on.
    expect((await get(`${live.url}${paths[0]}`, key)).body.name).toBe('now');
  });

  it('refuses every write with 405 in the error shape, ingestion included; flag evaluation still answers', async () => {
    const key = live.credentials.personal_api_key;
    const writes: [string, string, unknown][] = [
      ['POST', `${p}/feature_flags/`, { key: 'new' }],
      ['PATCH', paths[0], { name: 'x' }],
      ['DELETE', paths[0], undefined],
      ['POST', '/batch/', { api_key: live.credentials.project_api_key, batch: [{ event: 'e', distinct_id: 'd' }] }],
      ['GET', `/e/?data=${encodeURIComponent(JSON.stringify({ api_key: live.credentials.project_api_key, event: 'e', distinct_id: 'd' }))}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const res = await fetch(`${readOnly.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = await json(res);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(answer).toEqual({ type: 'invalid_request', code: 'read_only', detail: expect.stringMatching(/read-only.*position:\d+/), attr: null });
    }
    const flags = await fetch(`${readOnly.url}/flags/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: live.credentials.project_api_key, distinct_id: 'ro-user' }),
    });
    expect(flags.status).toBe(200);
    // As of the point the flag was still on, with its 100% rollout.
    expect((await json(flags)).flags['ro-flag'].enabled).toBe(true);
  });
});

// A PATCH that points a destination somewhere else must carry its secrets again: a key holder who
// never saw the stored password cannot send it (and the data) to a server of their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExportServer, type ExportServer } from './harness';

let s: ExportServer;
let base: string;
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
const patch = (body: unknown) => ({ method: 'PATCH', body: JSON.stringify(body) });
const PASSWORD = 'stored-pg-password-41';

beforeAll(async () => {
  s = await startExportServer({ start: '2024-06-03T10:05:00Z' });
  base = `/api/projects/${s.projectId}/batch_exports`;
});
afterAll(async () => s.close());

const opened = async (id: string) => {
  const row = (await s.runtime.exports.queries.exports.byId(id))!;
  return s.runtime.exports.secrets.openConfig(row.destination_type, row.destination_config);
};

async function refusedPatch(id: string, body: unknown): Promise<string> {
  const head = await s.runtime.log.head();
  const res = await s.api(`${base}/${id}/`, patch(body));
  const text = await res.text();
  expect(res.status, text).toBe(400);
  expect(text).not.toContain(PASSWORD);
  expect(JSON.parse(text)).toMatchObject({ type: 'validation_error', attr: 'destination' });
  expect(await s.runtime.log.head()).toBe(head);
  return JSON.parse(text).detail;
}

describe('PATCH that moves a destination needs its secrets again', () => {
  it('Postgres: host, port and database', async () => {
    const config = { user: 'exporter', password: PASSWORD, host: '127.0.0.1', port: 5432, database: 'test' };
    const exp = await s.call(`${base}/`, post({ name: 'pg', interval: 'hour', destination: { type: 'Postgres', config } }));
    for (const moved of [{ host: '127.0.0.2' }, { port: 6543 }, { database: 'other' }]) {
      const detail = await refusedPatch(exp.id, { destination: { config: moved } });
      expect(detail).toMatch(/^Changing (host|port|database) of a Postgres destination requires its secret fields again: user, password\.$/);
    }
    // Only the user given again is not enough either.
    expect(await refusedPatch(exp.id, { destination: { config: { host: '127.0.0.2', user: 'exporter' } } })).toMatch(/again: password\.$/);
    expect(await opened(exp.id)).toMatchObject({ host: '127.0.0.1', password: PASSWORD });

    // Changes that keep the target need nothing; a move with the secrets is accepted.
    await s.call(`${base}/${exp.id}/`, patch({ destination: { config: { table_name: 'events2', port: '5432' } } }));
    await s.call(`${base}/${exp.id}/`, patch({ destination: { config: { host: '127.0.0.2', user: 'exporter', password: 'new-password' } } }));
    expect(await opened(exp.id)).toMatchObject({ host: '127.0.0.2', table_name: 'events2', password: 'new-password' });
  });

  it('HTTP url and S3 bucket, endpoint and region', async () => {
    const h = await s.call(`${base}/`, post({ name: 'h', interval: 'hour', destination: { type: 'HTTP', config: { url: 'http://127.0.0.1:1/batch/', token: PASSWORD } } }));
    expect(await refusedPatch(h.id, { destination: { config: { url: 'http://127.0.0.1:2/batch/' } } })).toMatch(/Changing url .* again: token\./);
    await s.call(`${base}/${h.id}/`, patch({ destination: { config: { url: 'http://127.0.0.1:2/batch/', token: PASSWORD } } }));

    const s3 = { bucket_name: 'b', region: 'eu-west-1', aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: PASSWORD, endpoint_url: 'http://127.0.0.1:1' };
    const e = await s.call(`${base}/`, post({ name: 's', interval: 'hour', destination: { type: 'S3', config: s3 } }));
    for (const moved of [{ bucket_name: 'mine' }, { endpoint_url: 'http://127.0.0.1:2' }, { region: 'us-east-2' }])
      expect(await refusedPatch(e.id, { destination: { config: moved } })).toMatch(/again: aws_access_key_id, aws_secret_access_key\.$/);
    await s.call(`${base}/${e.id}/`, patch({ destination: { config: { prefix: 'p/{year}', compression: 'gzip' } } }));
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { CHANGES_SCHEMA, ChangeRecorder, RETENTION_MS, readChanges } from '../../../src/runtime/change-log';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { tempDir } from '../../support/temp-dir';

const event = (position: number, type: string, streamId: string, projectId: number | null): RecordedEvent => ({
  position,
  type,
  streamId,
  revision: 0,
  schemaVersion: 1,
  data: {},
  metadata: { eventId: `e-${position}`, recordedAt: '2026-01-01T00:00:00.000Z', projectId, actor: { type: 'system' }, causationId: null, correlationId: null },
});

async function store() {
  const s = new SqliteReadModelStore(openSqlite(join(tempDir('changes-'), 'rm.sqlite')));
  await s.transaction((tx) => tx.createTables([CHANGES_SCHEMA]));
  return s;
}

describe('the change log shared read models keep for following processes', () => {
  it('records one row per (type, stream, project) of a batch, none for events of no project; reads (from, to]', async () => {
    const s = await store();
    const recorder = new ChangeRecorder(() => 1000);
    await s.transaction((tx) =>
      recorder.record(tx, 'ingestion', [event(3, 'EventsCaptured', 'ingest-1', 1), event(4, 'EventsCaptured', 'ingest-1', 1), event(5, 'EventsCaptured', 'ingest-2', 2), event(6, 'OrganizationCreated', 'org-1', null)]),
    );
    await s.transaction((tx) => recorder.record(tx, 'feature_flags', [event(7, 'FeatureFlagCreated', 'flag-1', 1)]));
    expect(await readChanges(s.session, 'ingestion', 0, 10)).toEqual([
      { type: 'EventsCaptured', position: 4, streamId: 'ingest-1', metadata: { projectId: 1 } },
      { type: 'EventsCaptured', position: 5, streamId: 'ingest-2', metadata: { projectId: 2 } },
    ]);
    expect(await readChanges(s.session, 'ingestion', 4, 10)).toEqual([{ type: 'EventsCaptured', position: 5, streamId: 'ingest-2', metadata: { projectId: 2 } }]);
    expect(await readChanges(s.session, 'feature_flags', 0, 6)).toEqual([]);
  });

  it('folding the same positions again (a rebuilt projection) adds nothing and fails nothing', async () => {
    const s = await store();
    const recorder = new ChangeRecorder(() => 1000);
    const batch = [event(3, 'FeatureFlagCreated', 'flag-1', 1)];
    await s.transaction((tx) => recorder.record(tx, 'feature_flags', batch));
    await s.transaction((tx) => recorder.record(tx, 'feature_flags', batch));
    expect(await readChanges(s.session, 'feature_flags', 0, 10)).toHaveLength(1);
  });

  it('forgets rows older than the retention, at most once a minute', async () => {
    const s = await store();
    let now = 1_000_000;
    const recorder = new ChangeRecorder(() => now);
    await s.transaction((tx) => recorder.record(tx, 'surveys', [event(1, 'SurveyCreated', 'survey-1', 1)]));
    now += RETENTION_MS + 1;
    await s.transaction((tx) => recorder.record(tx, 'surveys', [event(2, 'SurveyCreated', 'survey-2', 1)]));
    expect((await readChanges(s.session, 'surveys', 0, 10)).map((c) => c.position)).toEqual([2]);
  });
});

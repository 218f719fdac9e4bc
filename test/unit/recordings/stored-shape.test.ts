import { describe, expect, it } from 'vitest';
import { allContracts, ContractRegistry, RecordingSnapshotsCaptured, snapshotCount, snapshotLines, type RecordingSnapshotsData, type SnapshotLine } from '../../../streams';

describe('RecordingSnapshotsCaptured: version 1 lines read as version 2 segments', () => {
  const registry = new ContractRegistry(allContracts);
  const lines: SnapshotLine[] = [
    ['w1', { type: 4, timestamp: 1 }],
    ['w1', { type: 2, timestamp: 1 }],
    ['w2', { type: 3, timestamp: 2 }],
    ['w1', { type: 3, timestamp: 3 }],
  ];
  const v1 = { session_id: 's1', distinct_id: 'd', snapshot_source: 'web', lib: 'web', received_at: '2026-01-01T00:00:00.000Z', snapshots: lines, snapshot_bytes: 123 };

  it('is version 2, and an upcast v1 record gives back the same lines in the same order, its other fields as stored', () => {
    expect(RecordingSnapshotsCaptured.version).toBe(2);
    const up = registry.upcast('RecordingSnapshotsCaptured', 1, v1) as RecordingSnapshotsData;
    expect(up.segments.map((g) => [g.window_id, g.events.length])).toEqual([['w1', 2], ['w2', 1], ['w1', 1]]);
    expect([...snapshotLines(up)]).toEqual(lines);
    expect(snapshotCount(up)).toBe(4);
    expect(up).toMatchObject({ session_id: 's1', distinct_id: 'd', snapshot_bytes: 123, received_at: v1.received_at });
    expect(up).not.toHaveProperty('snapshots');
    // The upcast record passes the current schema (what a fold of the old log sees is valid data).
    expect(() => registry.validate('RecordingSnapshotsCaptured', up)).not.toThrow();
  });
});

import type { RecordedEvent } from '../../../streams';

/** What a lane test's event carries: its lane and the work it stands for. */
export interface LaneData {
  lane: string;
  parts: number;
}

/**
 * Events by lane letter at positions 1, 2, ... ('-': an event of a type the projection does not
 * read, `Other`), each with its parts (1 unless given).
 */
export function laneLog(lanes: string, parts: number[] = []): RecordedEvent<'Folded' | 'Other', LaneData>[] {
  return [...lanes].map((lane, i) => ({
    position: i + 1,
    streamId: `lane-${lane}`,
    revision: i,
    type: lane === '-' ? 'Other' : 'Folded',
    schemaVersion: 1,
    data: { lane, parts: parts[i] ?? 1 },
    metadata: { eventId: `e-${i + 1}`, recordedAt: '2026-01-01T00:00:00.000Z', projectId: null, actor: { type: 'system' }, causationId: null, correlationId: null },
  }));
}

export const laneData = (event: RecordedEvent): LaneData => event.data as LaneData;

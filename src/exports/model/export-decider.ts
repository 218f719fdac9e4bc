import {
  batchExportEvents,
  type BatchExportCreatedData,
  type BatchExportEvent,
  type BatchExportInterval,
  type BatchExportUpdatedData,
} from '../../../streams';
import { notFound } from '../../errors';
import type { Decider } from '../../runtime/decider';

export interface ExportState {
  exists: boolean;
  deleted: boolean;
  id: string;
  projectId: number;
  paused: boolean;
  name: string;
  destination: { type: string; config: Record<string, unknown> };
  interval: BatchExportInterval;
  startAt: string | null;
  endAt: string | null;
  hogqlQuery: string | null;
  schema: Record<string, unknown> | null;
  lastPausedAt: string | null;
}

export type ExportChanges = Omit<BatchExportUpdatedData, 'id' | 'projectId'>;

export type ExportCommand =
  | { type: 'Create'; data: BatchExportCreatedData }
  | { type: 'Update'; changes: ExportChanges; paused?: boolean }
  | { type: 'Pause'; automatic: boolean; reason: string | null }
  | { type: 'Unpause'; backfill: boolean }
  | { type: 'Backfill'; backfillId: string; startAt: string; endAt: string }
  | { type: 'Delete' };

const initialState = (): ExportState => ({
  exists: false,
  deleted: false,
  id: '',
  projectId: 0,
  paused: false,
  name: '',
  destination: { type: '', config: {} },
  interval: 'hour',
  startAt: null,
  endAt: null,
  hogqlQuery: null,
  schema: null,
  lastPausedAt: null,
});

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Keeps only the fields whose value differs from the state, so an update records what changed. */
function changed<T extends object>(changes: T, s: { readonly [K in keyof T]?: unknown }): Partial<T> {
  const out: Partial<T> = {};
  for (const key in changes) {
    const value = changes[key];
    if (value !== undefined && !same(value, s[key])) out[key] = value;
  }
  return out;
}

/** The fields of `changes` that are set: spread over the state, it leaves the others as they are. */
function setFields<T extends object>(changes: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key in changes) if (changes[key] !== undefined) out[key] = changes[key];
  return out;
}

/**
 * The BatchExport aggregate. Inputs arrive validated (destination config, interval, hogql): this
 * only guards existence and turns state changes into events; pausing a paused export (or
 * unpausing a running one) changes nothing and records nothing.
 */
export const exportDecider: Decider<ExportCommand, BatchExportEvent, ExportState> = {
  events: batchExportEvents,
  initialState,
  evolve(s, e) {
    switch (e.type) {
      case 'BatchExportCreated': {
        const d = e.data;
        return {
          ...s,
          exists: true,
          id: d.id,
          projectId: d.projectId,
          paused: d.paused,
          name: d.name,
          destination: d.destination,
          interval: d.interval,
          startAt: d.startAt,
          endAt: d.endAt,
          hogqlQuery: d.hogqlQuery,
          schema: d.schema,
        };
      }
      case 'BatchExportUpdated': {
        const { id: _id, projectId: _p, ...changes } = e.data;
        return { ...s, ...setFields(changes) };
      }
      case 'BatchExportPaused':
        return { ...s, paused: true };
      case 'BatchExportUnpaused':
        return { ...s, paused: false };
      case 'BatchExportBackfillRequested':
        return s;
      case 'BatchExportDeleted':
        return { ...s, deleted: true };
    }
  },
  decide(c, s) {
    if (c.type === 'Create') return s.exists ? [] : [{ type: 'BatchExportCreated', data: c.data }];
    if (!s.exists || s.deleted) throw notFound();
    const ref = { id: s.id, projectId: s.projectId };
    switch (c.type) {
      case 'Update': {
        const events: BatchExportEvent[] = [];
        const diff = changed(c.changes, s);
        if (Object.keys(diff).length > 0) events.push({ type: 'BatchExportUpdated', data: { ...ref, ...diff } });
        if (c.paused === true && !s.paused) events.push({ type: 'BatchExportPaused', data: { ...ref, automatic: false, reason: null } });
        if (c.paused === false && s.paused) events.push({ type: 'BatchExportUnpaused', data: { ...ref, backfill: false } });
        return events;
      }
      case 'Pause':
        return s.paused ? [] : [{ type: 'BatchExportPaused', data: { ...ref, automatic: c.automatic, reason: c.reason } }];
      case 'Unpause':
        return s.paused ? [{ type: 'BatchExportUnpaused', data: { ...ref, backfill: c.backfill } }] : [];
      case 'Backfill':
        return [{ type: 'BatchExportBackfillRequested', data: { ...ref, backfillId: c.backfillId, startAt: c.startAt, endAt: c.endAt } }];
      case 'Delete':
        return [{ type: 'BatchExportDeleted', data: ref }];
    }
  },
};

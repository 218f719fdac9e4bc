import type { SnapshotLine } from '../streams';

/** rrweb's event and source numbers (rrweb `EventType`, `IncrementalSource`, `MouseInteractions`). */
const META = 4;
const INCREMENTAL = 3;
const PLUGIN = 6;
const MOUSE_MOVE = 1;
const MOUSE_INTERACTION = 2;
const INPUT = 5;
const TOUCH_MOVE = 6;
const CLICK = 2;
const DOUBLE_CLICK = 4;
const CONSOLE_PLUGIN = 'rrweb/console@1';
/** Beyond this, Date cannot render an epoch-ms time. */
const MAX_TIME_MS = 8.64e15;

export interface ChunkSummary {
  windowIds: string[];
  startTs: number | null;
  endTs: number | null;
  /** The href of the chunk's earliest Meta event, and that event's time. */
  url: string | null;
  urlTs: number | null;
  clicks: number;
  keypresses: number;
  mouseActivity: number;
  consoleLog: number;
  consoleWarn: number;
  consoleError: number;
}

const timeOf = (event: Record<string, unknown>): number | null => {
  const t = event.timestamp;
  return typeof t === 'number' && Number.isFinite(t) && t >= 0 && t <= MAX_TIME_MS ? Math.round(t) : null;
};

const objectAt = (value: unknown, key: string): Record<string, unknown> | undefined => {
  const v = (value as Record<string, unknown> | undefined)?.[key];
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
};

/** What one chunk adds to its session, read from the rrweb events alone (pure, deterministic). */
export function summarizeChunk(snapshots: Iterable<SnapshotLine>): ChunkSummary {
  const s: ChunkSummary = {
    windowIds: [],
    startTs: null,
    endTs: null,
    url: null,
    urlTs: null,
    clicks: 0,
    keypresses: 0,
    mouseActivity: 0,
    consoleLog: 0,
    consoleWarn: 0,
    consoleError: 0,
  };
  const windows = new Set<string>();
  for (const [windowId, event] of snapshots) {
    windows.add(windowId);
    const t = timeOf(event);
    if (t !== null) {
      if (s.startTs === null || t < s.startTs) s.startTs = t;
      if (s.endTs === null || t > s.endTs) s.endTs = t;
    }
    const data = objectAt(event, 'data');
    if (event.type === META && typeof data?.href === 'string' && t !== null && (s.urlTs === null || t < s.urlTs)) {
      s.url = data.href;
      s.urlTs = t;
    } else if (event.type === INCREMENTAL && data !== undefined) {
      const source = data.source;
      if (source === MOUSE_MOVE || source === MOUSE_INTERACTION || source === TOUCH_MOVE) s.mouseActivity++;
      if (source === MOUSE_INTERACTION && (data.type === CLICK || data.type === DOUBLE_CLICK)) s.clicks++;
      if (source === INPUT) s.keypresses++;
    } else if (event.type === PLUGIN && data?.plugin === CONSOLE_PLUGIN) {
      const level = objectAt(data, 'payload')?.level;
      if (level === 'warn') s.consoleWarn++;
      else if (level === 'error' || level === 'assert') s.consoleError++;
      else s.consoleLog++;
    }
  }
  s.windowIds = [...windows].sort();
  return s;
}

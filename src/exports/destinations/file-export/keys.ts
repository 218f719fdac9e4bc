import { posix } from 'node:path';
import { COMPRESSION_EXTENSIONS, FORMAT_EXTENSIONS } from '../../formats';
import type { FileExportSettings } from './settings';
import { PLACEHOLDER } from './placeholders';

export { PREFIX_PLACEHOLDERS, unknownPlaceholders } from './placeholders';

/**
 * An interval bound as Python's `datetime.isoformat()` prints a UTC datetime — PostHog builds
 * its keys from that string: `2024-01-01T00:00:00+00:00`, with `.ffffff` only when needed.
 */
export function pythonIsoFormat(date: Date): string {
  const ms = date.getUTCMilliseconds();
  return date.toISOString().slice(0, 19) + (ms === 0 ? '' : `.${String(ms * 1000).padStart(6, '0')}`) + '+00:00';
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Date placeholders come from the interval end, as in PostHog. */
export function renderPrefix(template: string, start: Date, end: Date, table = 'events'): string {
  const values: Record<string, string> = {
    year: String(end.getUTCFullYear()),
    month: pad2(end.getUTCMonth() + 1),
    day: pad2(end.getUTCDate()),
    hour: pad2(end.getUTCHours()),
    minute: pad2(end.getUTCMinutes()),
    second: pad2(end.getUTCSeconds()),
    data_interval_start: pythonIsoFormat(start),
    data_interval_end: pythonIsoFormat(end),
    table,
  };
  return template.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}

/** Keys are relative to the bucket (or directory) root, so a leading slash is dropped. */
const joinKey = (prefix: string, name: string) => posix.join(prefix, name).replace(/^\/+/, '');

/**
 * Where one run's files go: `<prefix>/<start>-<end>[-<n>].<jsonl|parquet>[.<gz|br|zst|lz4|sz>]`
 * and, when files are split, `<prefix>/<start>-<end>_manifest.json`. Everything derives from
 * the run's interval, so a retried or replayed run writes the same keys.
 */
export class FileNaming {
  readonly base: string;
  readonly extension: string;
  readonly numbered: boolean;

  constructor(settings: FileExportSettings, start: Date, end: Date, table = 'events') {
    const prefix = renderPrefix(settings.prefix, start, end, table);
    this.base = joinKey(prefix, `${pythonIsoFormat(start)}-${pythonIsoFormat(end)}`);
    const compression = settings.compression ? `.${COMPRESSION_EXTENSIONS[settings.compression]}` : '';
    this.extension = `.${FORMAT_EXTENSIONS[settings.file_format]}${compression}`;
    // PostHog numbers files whenever a size limit is configured, even when one file suffices.
    this.numbered = settings.max_file_size_mb !== null;
  }

  dataKey(index: number): string {
    return this.numbered ? `${this.base}-${index}${this.extension}` : `${this.base}${this.extension}`;
  }

  get manifestKey(): string {
    return `${this.base}_manifest.json`;
  }

  /** Lists under this prefix find every numbered file of the run, stale ones included. */
  get listPrefix(): string {
    return `${this.base}-`;
  }

  /** The index of a numbered data file of this run (same format and compression), or null. */
  indexOf(key: string): number | null {
    if (!key.startsWith(this.listPrefix) || !key.endsWith(this.extension)) return null;
    const middle = key.slice(this.listPrefix.length, key.length - this.extension.length);
    return /^\d+$/.test(middle) ? Number(middle) : null;
  }
}

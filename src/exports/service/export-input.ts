import type { BatchExportInterval } from '../../../streams';
import { validationError } from '../../errors';

/** A HogQL query as checked, with the `schema` derived from it (both null: no query). */
export interface CheckedQuery {
  hogqlQuery: string | null;
  schema: Record<string, unknown> | null;
}

/**
 * The write body of spec 4.2 / 4.3 as its schema read it. `destination` is as sent: checking it
 * needs the secrets and the export policy (and, on PATCH, the stored config), so the service does.
 */
export interface ExportCreate {
  name: string;
  destination: unknown;
  interval: BatchExportInterval;
  paused: boolean;
  startAt: string | null;
  endAt: string | null;
  query: CheckedQuery;
  model: 'events';
}

/** A PATCH: only the fields it gives. */
export interface ExportPatch {
  name?: string;
  destination?: unknown;
  interval?: BatchExportInterval;
  paused?: boolean;
  startAt?: string | null;
  endAt?: string | null;
  query?: CheckedQuery;
  lastPausedAt?: string | null;
}

export function checkBounds(startAt: string | null, endAt: string | null): void {
  if (startAt !== null && endAt !== null && endAt <= startAt) throw validationError("'end_at' must be after 'start_at'.", 'end_at');
}

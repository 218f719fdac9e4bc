import type { FastifyRequest } from 'fastify';
import type { RunCursor, RunPage } from '../../../projections/exports';
import { notFoundError } from '../errors';
import { linkWith } from '../links';

/**
 * Runs are paged by keyset, not offset: the cursor names the boundary run (its log position) and
 * a direction, so a page's neighbours do not shift when new runs are scheduled meanwhile. The
 * cursor is opaque to clients (base64url JSON), like DRF's CursorPagination.
 */
export function encodeCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify({ p: cursor.seq, r: cursor.newer ? 1 : 0 })).toString('base64url');
}

/** DRF answers a cursor it cannot read with 404 "Invalid cursor". */
export function decodeCursor(value: unknown): RunCursor | null {
  if (value === undefined || value === '') return null;
  try {
    const parsed = JSON.parse(Buffer.from(String(value), 'base64url').toString('utf8')) as { p?: unknown; r?: unknown };
    if (typeof parsed.p !== 'number' || !Number.isSafeInteger(parsed.p) || (parsed.r !== 0 && parsed.r !== 1)) throw new Error('bad');
    return { seq: parsed.p, newer: parsed.r === 1 };
  } catch {
    throw notFoundError('Invalid cursor');
  }
}

const cursorUrl = (request: FastifyRequest, cursor: RunCursor): string => linkWith(request, { cursor: encodeCursor(cursor) });

/** The cursor envelope (spec 2.6): absolute `next` / `previous` URLs carrying the cursor, or null. */
export function cursorEnvelope<T>(request: FastifyRequest, page: RunPage, results: T[]) {
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  return {
    next: page.hasOlder && last ? cursorUrl(request, { seq: last.seq, newer: false }) : null,
    previous: page.hasNewer && first ? cursorUrl(request, { seq: first.seq, newer: true }) : null,
    results,
  };
}

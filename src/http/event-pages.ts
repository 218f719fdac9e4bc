import type { FastifyRequest } from 'fastify';
import { linkWith } from './links';
import type { Page } from './pagination';

/** Where a page of the events list ends: its last row's place in the (timestamp desc, uuid desc) order. */
interface Keyed {
  timestamp: string;
  uuid: string;
}

/**
 * The events list's envelope, uncounted (the table is too large to count on every page). `next`
 * carries a keyset cursor, as PostHog's events API carries `before=<last timestamp>`, plus the last
 * uuid, which makes it exact where several events share a time: each page then costs the same
 * wherever it lies, and events arriving meanwhile neither repeat nor push out rows of the older
 * part. `previous` stays the offset link of an explicit `offset` (small lists).
 */
export function eventsEnvelope<T extends Keyed>(request: FastifyRequest, page: Page, rows: T[]) {
  const more = rows.length > page.limit;
  const results = more ? rows.slice(0, page.limit) : rows;
  const last = results[results.length - 1];
  const next = more && last ? linkWith(request, { before: last.timestamp, before_uuid: last.uuid, offset: null, limit: String(page.limit) }) : null;
  const previous = page.offset > 0 ? linkWith(request, { limit: String(page.limit), offset: String(Math.max(0, page.offset - page.limit)) }) : null;
  return { next, previous, results };
}

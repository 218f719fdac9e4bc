import { z } from 'zod';
import { notFoundError } from '../errors';
import { AS_OF_HELP, parseAsOf, type AsOf } from '../../time-travel';

/** The `as_of` query parameter of a resource's GET: read as text here, parsed by the handler (400 in the spec's shape when invalid). */
export const asOfQuery = { as_of: z.string().optional().meta({ description: AS_OF_HELP, examples: ['2026-01-31T12:00:00Z', 'position:1042'] }) };
export const AsOfQuery = z.object(asOfQuery);

/** The requested point, or null for now (the live read model). */
export const asOfOf = (query: { as_of?: string }): AsOf | null => (query.as_of === undefined ? null : parseAsOf(query.as_of));

/** A resource as it stood, or 404 when it did not exist then. */
export function orNotFound<T>(row: T | undefined): T {
  if (row === undefined) throw notFoundError();
  return row;
}

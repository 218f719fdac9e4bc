import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { invalidInput, notFoundError } from '../errors';
import { pageEnvelope, parsePage, type Page } from '../pagination';
import { parseWith } from '../validation';

type P = { Params: { project_id: string; id?: string } };
const projectOf = (request: FastifyRequest) => Number((request.params as { project_id: string }).project_id);

const GroupQuery = z.looseObject({
  group_type_index: z.coerce.number().int().min(0).max(4).optional(),
  group_key: z.string().optional(),
});
const EventQuery = z.looseObject({
  event: z.string().optional(),
  distinct_id: z.string().optional(),
  after: z.iso.datetime({ offset: true, local: true }).or(z.iso.date()).optional(),
  before: z.iso.datetime({ offset: true, local: true }).or(z.iso.date()).optional(),
});

/** Next/previous without a total: the events table is too large to count on every page. */
function uncountedEnvelope<T>(request: FastifyRequest, page: Page, rows: T[]) {
  const more = rows.length > page.limit;
  const results = more ? rows.slice(0, page.limit) : rows;
  const env = pageEnvelope(request, page, page.offset + results.length + (more ? 1 : 0), results);
  return { next: more ? env.next : null, previous: env.previous, results };
}

/** Read API over persons, groups, group types, events and ingestion warnings. */
export const peopleRoutes: FastifyPluginAsync = async (app) => {
  const q = app.runtime.queries.ingestion;
  const base = '/api/projects/:project_id';

  app.get<P>(`${base}/persons/`, { config: { scope: 'person:read' } }, async (request) => {
    const page = parsePage(request.query);
    const distinctId = (request.query as Record<string, string | undefined>).distinct_id;
    const { count, results } = await q.persons(projectOf(request), { ...page, distinctId });
    return pageEnvelope(request, page, count, results);
  });

  app.get<P>(`${base}/persons/:id/`, { config: { scope: 'person:read' } }, async (request) => {
    const person = await q.person(projectOf(request), request.params.id ?? '');
    if (!person) throw notFoundError();
    return person;
  });

  app.get<P>(`${base}/groups/`, { config: { scope: 'group:read' } }, async (request) => {
    const page = parsePage(request.query);
    const filter = parseWith(GroupQuery, request.query);
    const { count, results } = await q.groups(projectOf(request), { ...page, groupTypeIndex: filter.group_type_index, groupKey: filter.group_key });
    return pageEnvelope(request, page, count, results);
  });

  app.get<P>(`${base}/groups_types/`, { config: { scope: 'group:read' } }, async (request) => q.groupTypeMappings(projectOf(request)));

  app.get<P>(`${base}/events/`, { config: { scope: 'query:read' } }, async (request) => {
    const page = parsePage(request.query);
    const f = parseWith(EventQuery, request.query);
    if (f.after && f.before && f.after >= f.before) throw invalidInput("'after' must be earlier than 'before'.", 'after');
    const rows = await q.events(projectOf(request), { limit: page.limit + 1, offset: page.offset, event: f.event, distinctId: f.distinct_id, after: f.after, before: f.before });
    return uncountedEnvelope(request, page, rows);
  });

  app.get<P>(`${base}/ingestion_warnings/`, { config: { scope: 'query:read' } }, async (request) => {
    const page = parsePage(request.query);
    return uncountedEnvelope(request, page, await q.ingestionWarnings(projectOf(request), { limit: page.limit + 1, offset: page.offset }));
  });
};

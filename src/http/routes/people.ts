import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { invalidInput, notFoundError } from '../errors';
import { eventsEnvelope } from '../event-pages';
import { pageEnvelope, type Page } from '../pagination';
import { JsonObject, pageQuery, paginated, ProjectId, ProjectParams, uncounted } from '../schema/common';
import type { Parts } from '../runtime-parts';
import { AsOfQuery, asOfOf, asOfQuery } from '../schema/as-of';

// The ingestion projection's API rows (projections/ingestion/api-types.ts), field for field.
export const Person = z
  .object({
    id: z.string(),
    uuid: z.string(),
    distinct_ids: z.array(z.string()),
    properties: JsonObject,
    created_at: z.string(),
    is_identified: z.boolean(),
  })
  .meta({ id: 'Person' });
const Group = z.object({ group_type_index: z.number().int(), group_key: z.string(), group_properties: JsonObject, created_at: z.string() }).meta({ id: 'Group' });
const GroupType = z.object({ group_type: z.string(), group_type_index: z.number().int() });
const Event = z
  .object({
    id: z.string(),
    uuid: z.string(),
    event: z.string(),
    distinct_id: z.string(),
    person_id: z.string().nullable(),
    properties: JsonObject,
    timestamp: z.string(),
    received_at: z.string(),
    elements_chain: z.string(),
    group_0: z.string().nullable(),
    group_1: z.string().nullable(),
    group_2: z.string().nullable(),
    group_3: z.string().nullable(),
    group_4: z.string().nullable(),
    historical_migration: z.boolean(),
  })
  .meta({ id: 'Event' });
const IngestionWarning = z.object({ type: z.string(), source: z.string(), details: JsonObject, timestamp: z.string() });

const GroupQuery = z.object({
  ...pageQuery(),
  group_type_index: z.coerce.number().int().min(0).max(4).optional(),
  group_key: z.string().optional(),
  ...asOfQuery,
});
const instant = z.iso.datetime({ offset: true, local: true }).or(z.iso.date()).optional();
const EventQuery = z.object({
  ...pageQuery(),
  event: z.string().optional().meta({ description: 'Event name.' }),
  distinct_id: z.string().optional(),
  person_id: z.string().max(200).optional().meta({ description: "A person's id: the events of every distinct id it holds now, those sent before a merge included." }),
  after: instant.meta({ description: 'ISO 8601 date or datetime (inclusive).' }),
  before: instant.meta({ description: 'ISO 8601 date or datetime (exclusive).' }),
  before_uuid: z
    .string()
    .max(200)
    .optional()
    .meta({ description: "With 'before': the uuid of the previous page's last event, so ties on its time continue exactly (the `next` links carry both)." }),
});

/** Next/previous without a total: the events table is too large to count on every page. */
function uncountedEnvelope<T>(request: FastifyRequest, page: Page, rows: T[]) {
  const more = rows.length > page.limit;
  const results = more ? rows.slice(0, page.limit) : rows;
  const env = pageEnvelope(request, page, page.offset + results.length + (more ? 1 : 0), results);
  return { next: more ? env.next : null, previous: env.previous, results };
}

/** Read API over persons, groups, group types, events and ingestion warnings. */
export const peopleRoutes: FastifyPluginAsyncZod<Parts<'timeTravel' | 'analytics', 'ingestion'>> = async (app, parts) => {
  const q = parts.queries.ingestion;
  const base = '/api/projects/:project_id';
  const projectOf = (params: { project_id: string }) => Number(params.project_id);

  app.get(
    `${base}/persons/`,
    {
      config: { scope: 'person:read' },
      schema: {
        summary: 'Lists persons, newest first.',
        params: ProjectParams,
        querystring: z.object({
          ...pageQuery(),
          distinct_id: z.string().optional().meta({ description: 'Only the person with this distinct id.' }),
          ...asOfQuery,
        }),
        response: { 200: paginated(Person) },
      },
    },
    async (request) => {
      const { distinct_id: distinctId, as_of: _asOf, ...page } = request.query;
      const asOf = asOfOf(request.query);
      if (asOf) {
        // The past of one person at a time: all persons as of a point is what `replay --until` builds.
        if (distinctId === undefined) throw invalidInput('as_of on the persons list needs distinct_id: one person as it stood (the whole list as of a point: `replay --until`).', 'as_of');
        const person = await parts.timeTravel.people.personOf(projectOf(request.params), distinctId, asOf);
        return pageEnvelope(request, page, person ? 1 : 0, person && page.offset === 0 && page.limit > 0 ? [person] : []);
      }
      const { count, results } = await q.persons(projectOf(request.params), { ...page, distinctId });
      return pageEnvelope(request, page, count, results);
    },
  );

  app.get(
    `${base}/persons/:id/`,
    {
      config: { scope: 'person:read' },
      schema: {
        summary: 'One person, by uuid (`as_of`: as it stood then; one merged away since comes back as it was).',
        params: z.object({ project_id: ProjectId, id: z.string().meta({ description: 'Person uuid.' }) }),
        querystring: AsOfQuery,
        response: { 200: Person },
      },
    },
    async (request) => {
      const asOf = asOfOf(request.query);
      const person = asOf ? await parts.timeTravel.people.person(projectOf(request.params), request.params.id, asOf) : await q.person(projectOf(request.params), request.params.id);
      if (!person) throw notFoundError();
      return person;
    },
  );

  app.get(
    `${base}/groups/`,
    { config: { scope: 'group:read' }, schema: { summary: 'Lists groups.', params: ProjectParams, querystring: GroupQuery, response: { 200: paginated(Group) } } },
    async (request) => {
      const { group_type_index: groupTypeIndex, group_key: groupKey, as_of: _asOf, ...page } = request.query;
      const asOf = asOfOf(request.query);
      if (asOf) {
        if (groupTypeIndex === undefined || groupKey === undefined) throw invalidInput('as_of on the groups list needs group_type_index and group_key: one group as it stood.', 'as_of');
        const group = await parts.timeTravel.people.group(projectOf(request.params), groupTypeIndex, groupKey, asOf);
        return pageEnvelope(request, page, group ? 1 : 0, group && page.offset === 0 && page.limit > 0 ? [group] : []);
      }
      const { count, results } = await q.groups(projectOf(request.params), { ...page, groupTypeIndex, groupKey });
      return pageEnvelope(request, page, count, results);
    },
  );

  app.get(
    `${base}/groups_types/`,
    { config: { scope: 'group:read' }, schema: { summary: 'The group types, by index.', params: ProjectParams, response: { 200: z.array(GroupType) } } },
    async (request) => q.groupTypeMappings(projectOf(request.params)),
  );

  app.get(
    `${base}/events/`,
    { config: { scope: 'query:read' }, schema: { summary: 'Lists events, newest first.', params: ProjectParams, querystring: EventQuery, response: { 200: uncounted(Event) } } },
    async (request) => {
      const { event, distinct_id: distinctId, person_id: personId, after, before, before_uuid: beforeUuid, ...page } = request.query;
      if (after && before && after >= before) throw invalidInput("'after' must be earlier than 'before'.", 'after');
      if (beforeUuid !== undefined && before === undefined) throw invalidInput("'before_uuid' needs 'before': together they are the cursor of a `next` link.", 'before_uuid');
      const rows = await parts.analytics.events(projectOf(request.params), { limit: page.limit + 1, offset: page.offset, event, distinctId, personId, after, before, beforeUuid });
      return eventsEnvelope(request, page, rows);
    },
  );

  app.get(
    `${base}/ingestion_warnings/`,
    {
      config: { scope: 'query:read' },
      schema: { summary: 'Ingestion warnings, newest first.', params: ProjectParams, querystring: z.object(pageQuery()), response: { 200: uncounted(IngestionWarning) } },
    },
    async (request) => {
      const page = request.query;
      return uncountedEnvelope(request, page, await q.ingestionWarnings(projectOf(request.params), { limit: page.limit + 1, offset: page.offset }));
    },
  );
};

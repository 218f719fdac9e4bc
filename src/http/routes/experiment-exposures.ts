import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { numericId, ProjectObjectParams } from '../schema/common';
import type { Parts } from '../runtime-parts';

const Counted = z.object({
  uuid: z.string(),
  event: z.string(),
  distinct_id: z.string(),
  timestamp: z.string(),
  variant: z.string().nullable().meta({ description: 'The variant the event carries: the flag call\'s response, or `$feature/<key>`.' }),
  counted: z.boolean().meta({ description: 'Whether the results count it for that variant.' }),
});

const PersonExposures = z
  .object({
    distinct_id: z.string(),
    person_id: z.string().nullable(),
    variant: z.string().nullable().meta({ description: "The variant of the person's first counted exposure." }),
    exposures: z.array(Counted).meta({ description: '`$feature_flag_called` events for the experiment\'s flag in its date range.' }),
    metrics: z.array(
      z.object({
        name: z.string(),
        kind: z.enum(['primary', 'secondary']),
        insight: z.enum(['FUNNELS', 'TRENDS']).nullable(),
        events: z.array(Counted),
        variant: z.string().nullable().meta({ description: 'The variant the person counts under for this metric.' }),
        converted: z.boolean().nullable(),
        error: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'ExperimentPersonExposures' });

const Query = z.object({
  distinct_id: z.string({ error: 'distinct_id is required' }).min(1, { error: 'distinct_id is required' }).meta({ description: 'The person (any of their distinct ids).' }),
});

/**
 * The exposure and conversion events an experiment's results count for one person, and the
 * variant attributed (issue 23 item 4). Events of every distinct id the person holds now count,
 * as in the results.
 */
export const experimentExposureRoutes: FastifyPluginAsyncZod<Parts<'experiments', 'ingestion'>> = async (app, { experiments, queries }) => {
  app.get(
    '/api/projects/:project_id/experiments/:id/exposures/',
    {
      config: { scope: 'experiment:read' },
      schema: { summary: 'What the results count for one person: exposures, metric events, the variant.', params: ProjectObjectParams, querystring: Query, response: { 200: PersonExposures } },
    },
    async (request) => {
      const projectId = Number(request.params.project_id);
      const distinctId = request.query.distinct_id;
      const personId = await queries.ingestion.personIdOf(projectId, distinctId);
      const found = await experiments.results.forPerson(projectId, numericId(request.params.id), personId === null ? { distinctId } : { personId });
      return { distinct_id: distinctId, person_id: personId, ...found };
    },
  );
};

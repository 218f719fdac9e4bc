import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { JsonObject, ProjectParams } from '../schema/common';
import type { Parts } from '../runtime-parts';

const ExperimentQueryBody = z.looseObject({
  query: z.looseObject({
    kind: z.literal('ExperimentQuery', { error: 'Only ExperimentQuery queries are answered here.' }),
    metric: JsonObject.meta({ description: 'One `ExperimentMetric` (mean, funnel or ratio).' }),
    experiment_id: z.number().int().positive(),
  }),
  refresh: z.string().optional().meta({ description: 'Accepted for PostHog clients; the answer is always computed synchronously.' }),
});

const ArmResult = z.looseObject({
  key: z.string(),
  number_of_samples: z.number(),
  sum: z.number(),
  sum_squares: z.number(),
  validation_failures: z.array(z.string()),
});

const ExperimentQueryResponse = z
  .looseObject({
    kind: z.literal('ExperimentQuery'),
    metric: z.unknown(),
    baseline: ArmResult,
    variant_results: z.array(
      ArmResult.extend({
        method: z.enum(['bayesian', 'frequentist']),
        chance_to_win: z.number().nullable().optional(),
        credible_interval: z.tuple([z.number(), z.number()]).nullable().optional(),
        p_value: z.number().nullable().optional(),
        confidence_interval: z.tuple([z.number(), z.number()]).nullable().optional(),
        significant: z.boolean(),
      }),
    ),
    is_precomputed: z.boolean(),
    last_refresh: z.string(),
  })
  .meta({ id: 'ExperimentQueryResponse' });

/**
 * PostHog's query endpoint for experiment results (compat §15.2), under both its project and its
 * environment path. Only `ExperimentQuery` is answered; scope query:read as PostHog asks.
 */
export const experimentQueryRoutes: FastifyPluginAsyncZod<Parts<'experiments'>> = async (app, { experiments }) => {
  for (const base of ['/api/projects/:project_id/query/', '/api/environments/:project_id/query/']) {
    app.post(
      base,
      {
        config: { scope: 'query:read' },
        schema: {
          summary: 'Runs a query: `ExperimentQuery` gives one metric of an experiment per variant.',
          params: ProjectParams,
          body: ExperimentQueryBody,
          response: { 200: ExperimentQueryResponse },
        },
      },
      async (request) => {
        const { query } = request.body;
        return experiments.query.run(Number(request.params.project_id), query.experiment_id, query.metric);
      },
    );
  }
};

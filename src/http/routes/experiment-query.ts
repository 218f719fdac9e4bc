import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { JsonObject, ProjectParams } from '../schema/common';
import type { Parts } from '../runtime-parts';

const ExperimentQueryNode = z.looseObject({
  kind: z.literal('ExperimentQuery'),
  metric: JsonObject.meta({ description: 'One `ExperimentMetric` (mean, funnel or ratio).' }),
  experiment_id: z.number().int().positive(),
});

const IsoDate = z.string().nullable().optional();
const ExperimentExposureQueryNode = z.looseObject({
  kind: z.literal('ExperimentExposureQuery'),
  experiment_id: z.number().int().positive(),
  start_date: IsoDate.meta({ description: "Defaults to the experiment's start date." }),
  end_date: IsoDate.meta({ description: "Defaults to the experiment's end date, or now." }),
});

const ExperimentQueryBody = z.looseObject({
  query: z.discriminatedUnion('kind', [ExperimentQueryNode, ExperimentExposureQueryNode], {
    error: 'Only ExperimentQuery and ExperimentExposureQuery queries are answered here.',
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

const ExperimentExposureQueryResponse = z
  .looseObject({
    kind: z.literal('ExperimentExposureQuery'),
    timeseries: z.array(z.object({ variant: z.string(), days: z.array(z.string()), exposure_counts: z.array(z.number()) })),
    total_exposures: z.record(z.string(), z.number()),
    date_range: z.looseObject({ date_from: z.string().nullable(), date_to: z.string().nullable() }),
    sample_ratio_mismatch: z.object({ expected: z.record(z.string(), z.number()), p_value: z.number() }).nullable(),
    last_refresh: z.string(),
  })
  .meta({ id: 'ExperimentExposureQueryResponse' });

/**
 * PostHog's query endpoint for experiment results (compat §15.2), under both its project and its
 * environment path. `ExperimentQuery` and `ExperimentExposureQuery` are answered;
 * scope query:read as PostHog asks.
 */
export const experimentQueryRoutes: FastifyPluginAsyncZod<Parts<'experiments'>> = async (app, { experiments }) => {
  for (const base of ['/api/projects/:project_id/query/', '/api/environments/:project_id/query/']) {
    app.post(
      base,
      {
        config: { scope: 'query:read' },
        schema: {
          summary:
            'Runs a query: `ExperimentQuery` gives one metric of an experiment per variant; `ExperimentExposureQuery` its exposures per variant and day.',
          params: ProjectParams,
          body: ExperimentQueryBody,
          response: { 200: z.union([ExperimentQueryResponse, ExperimentExposureQueryResponse]) },
        },
      },
      async (request) => {
        const { query } = request.body;
        const projectId = Number(request.params.project_id);
        if (query.kind === 'ExperimentExposureQuery') return experiments.exposures.run(projectId, query);
        return experiments.query.run(projectId, query.experiment_id, query.metric);
      },
    );
  }
};

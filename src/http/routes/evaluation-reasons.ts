import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { explainState, requestState } from '../../flags/serving';
import { ProjectParams } from '../schema/common';
import { EvaluationReasonsQuery, FlagReason } from '../schema/evaluation-reasons';
import type { Parts } from '../runtime-parts';

/**
 * PostHog's `evaluation_reasons` (compat §14): each flag's value and reason for a person, as `/flags`
 * would answer (same reads, same engine), with the facts behind it: hashes, each condition's
 * properties with the person's values, the continuity key used.
 */
export const evaluationReasonRoutes: FastifyPluginAsyncZod<Parts<'flagSource'>> = async (app, { flagSource }) => {
  app.get(
    '/api/projects/:project_id/feature_flags/evaluation_reasons/',
    {
      config: { scope: 'feature_flag:read' },
      schema: {
        operationId: 'feature_flags_evaluation_reasons_retrieve',
        summary: "Each flag's value for a person, why, and the facts that decided it.",
        params: ProjectParams,
        querystring: EvaluationReasonsQuery,
        response: { 200: z.record(z.string(), FlagReason) },
      },
    },
    async (request) => {
      const { distinct_id, groups } = request.query;
      // No request person properties or GeoIP: the stored person is what is explained.
      const state = await requestState(flagSource, Number(request.params.project_id), { distinct_id, groups, geoip_disable: true }, undefined, new Date());
      return explainState(state);
    },
  );
};

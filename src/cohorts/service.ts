import { cohortStream, type Actor } from '../../streams';
import type { CohortQueries } from '../../projections/cohorts-queries';
import { handleCommand } from '../runtime/command-handler';
import { withNextId } from '../runtime/sequential-id';
import type { EventLog } from '../store/event-log';
import { cohortDecider } from './decider';

export interface CohortServiceDeps {
  log: EventLog;
  cohorts: CohortQueries;
}

export interface ExposureCohortInput {
  experimentId: number;
  experimentName: string;
  flagKey: string;
  /** The experiment's start date (ISO): exposures before it do not count. */
  since: string;
}

/** PostHog's behavioural filter for the same membership, so clients display it as PostHog would. */
export function exposureFilters(flagKey: string, since: string): Record<string, unknown> {
  return {
    properties: {
      type: 'OR',
      values: [
        {
          type: 'OR',
          values: [
            {
              type: 'behavioral',
              value: 'performed_event',
              key: '$feature_flag_called',
              negation: false,
              event_type: 'events',
              event_filters: [{ key: '$feature_flag', value: [flagKey], operator: 'exact', type: 'event' }],
              explicit_datetime: since,
            },
          ],
        },
      ],
    },
  };
}

/**
 * Cohort commands. They answer with the appended position and do not wait for the read model
 * themselves: the caller (the experiment service) links the cohort first and waits once.
 */
export class CohortService {
  constructor(private readonly deps: CohortServiceDeps) {}

  async createExposureCohort(projectId: number, input: ExposureCohortInput, actor: Actor): Promise<{ cohortId: number; position: number }> {
    const { log, cohorts } = this.deps;
    return withNextId(await cohorts.nextId(), async (cohortId) => {
      const command = {
        type: 'CreateCohort' as const,
        cohortId,
        projectId,
        name: `Users exposed to experiment "${input.experimentName}"`,
        description: '',
        filters: exposureFilters(input.flagKey, input.since),
        exposure: { flagKey: input.flagKey, since: input.since },
        experimentId: input.experimentId,
        createdBy: actor.type === 'user' ? actor.id : null,
      };
      const { result } = await handleCommand(log, cohortStream(cohortId), cohortDecider, command, { actor, projectId }, { maxAttempts: 1 });
      return { cohortId, position: result!.lastPosition };
    });
  }

  async delete(projectId: number, cohortId: number, actor: Actor): Promise<number | null> {
    const { result } = await handleCommand(this.deps.log, cohortStream(cohortId), cohortDecider, { type: 'DeleteCohort' }, { actor, projectId });
    return result?.lastPosition ?? null;
  }
}

import type { FeatureFlagQueries } from '../../projections/feature-flags-queries';
import type { SqlSession } from '../store/sql';
import { surveyQueries } from '../../projections/surveys-queries';
import type { FlagService } from '../flags/management';
import type { EventLog } from '../store/event-log';
import { publicSurveyBody } from './body';
import { SurveyService } from './service';

export { SurveyService, type SurveyServiceDeps } from './service';
export { surveyDecider, type SurveyCommand, type SurveyState } from './decider';
export { SURVEY_TYPES, type SurveyCreate, type SurveyUpdate, type TargetingInput } from './input';
export { surveyBody, publicSurveyBody } from './body';

/** Surveys wired over the runtime's log and read models (through the session). */
export function openSurveys(deps: { log: EventLog; session: SqlSession; flags: FlagService; flagQueries: FeatureFlagQueries; waitFor: (position: number) => Promise<void> }) {
  const queries = surveyQueries(deps.session);
  const flags = deps.flagQueries;
  const service = new SurveyService({ log: deps.log, surveys: queries, flags, flagService: deps.flags, waitFor: deps.waitFor });
  return {
    service,
    queries,
    /** The surveys posthog-js is served for a project (the public list; remote config's `surveys` too). */
    publicSurveys: async (projectId: number) => Promise.all((await queries.active(projectId)).map((s) => publicSurveyBody(s, flags.byId, flags.byKey))),
  };
}

export type Surveys = ReturnType<typeof openSurveys>;

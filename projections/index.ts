import type { ReadModelProjection } from '../src/store/read-model-projection';
import { accessProjection } from './access';
import { featureFlagsProjection } from './feature-flags';
import { ingestionProjection } from './ingestion';
import { experimentsProjection } from './experiments';
import { experimentSavedMetricsProjection } from './experiment-saved-metrics';
import { actionsProjection } from './actions';
import { cohortsProjection } from './cohorts';
import { surveysProjection } from './surveys';
import { earlyAccessProjection } from './early-access';
import { batchExportsProjection, batchExportRunsProjection, batchExportLogsProjection } from './exports';
import { recordingsProjection } from './recordings';
import { activityProjection } from './activity';

export * from './define-projection';
export { accessProjection } from './access';
export { accessQueries, type AccessQueries } from './access-queries';
export { featureFlagsProjection } from './feature-flags';
export { featureFlagQueries, type FeatureFlagQueries, type FeatureFlagRow } from './feature-flags-queries';

/** Every read model of the product, in the order the runner applies them. */
export const allProjections: readonly ReadModelProjection[] = [accessProjection, ingestionProjection, featureFlagsProjection, experimentsProjection, experimentSavedMetricsProjection, actionsProjection, cohortsProjection, batchExportsProjection, batchExportRunsProjection, batchExportLogsProjection, recordingsProjection, surveysProjection, earlyAccessProjection, activityProjection];
export { ingestionProjection, ingestionQueries, type IngestionQueries } from './ingestion';
export { recordingsProjection } from './recordings';
export { recordingQueries, type RecordingQueries, type RecordingRow, type RecordingChunkRow } from './recordings-queries';
export { activityProjection, activityQueries, ACTIVITY_SCOPES, type ActivityQueries, type ActivityRow, type ActivityScope } from './activity';

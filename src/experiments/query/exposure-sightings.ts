import type { ExperimentMetricReads, ExposureRow } from '../../store/analytics';
import type { ExperimentRow } from '../../../projections/experiments-queries';
import { validationError } from '../../errors';

/**
 * Per (entity, variant) the first exposure in [start, end], by the experiment's exposure criteria:
 * `$feature_flag_called` for its flag, or a custom exposure event carrying `$feature/<key>`.
 */
export async function exposureSightings(
  metricQueries: ExperimentMetricReads,
  projectId: number,
  experiment: ExperimentRow,
  start: number,
  end: number,
): Promise<ExposureRow[]> {
  const config = experiment.exposure_criteria?.exposure_config as { kind?: string; event?: unknown } | undefined;
  if (config && config.kind === 'ActionsNode') throw validationError('Action exposure criteria are not supported here.', 'query');
  const customEvent = config && typeof config.event === 'string' && config.event !== '$feature_flag_called' ? config.event : null;
  return metricQueries.exposures(projectId, experiment.feature_flag_key, customEvent, {
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
  });
}

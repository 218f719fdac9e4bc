import { createHash } from 'node:crypto';
import {
  batchExportEvents,
  destinationSecretFields,
  cohortEvents,
  earlyAccessFeatureEvents,
  experimentEvents,
  experimentSavedMetricEvents,
  actionEvents,
  featureFlagEvents,
  surveyEvents,
  type RecordedOf,
  type SavedMetricLink,
} from '../../streams';

/** PostHog's activity scopes for the resources whose changes are logged (compat §12). */
export const ACTIVITY_SCOPES = ['FeatureFlag', 'Experiment', 'ExperimentSavedMetric', 'Action', 'Cohort', 'Survey', 'EarlyAccessFeature', 'BatchExport'] as const;
export type ActivityScope = (typeof ACTIVITY_SCOPES)[number];

/** The management events the activity fold reads: every change to a logged resource. */
export const activityEvents = [...featureFlagEvents, ...experimentEvents, ...experimentSavedMetricEvents, ...actionEvents, ...cohortEvents, ...surveyEvents, ...earlyAccessFeatureEvents, ...batchExportEvents] as const;
export type ActivityEvent = RecordedOf<(typeof activityEvents)[number]>;

/** An item's fields as the API names them; `_`-prefixed fields are the fold's own bookkeeping, never shown. */
export type ItemState = Record<string, unknown>;

interface Target {
  scope: ActivityScope;
  /** Unique within the scope across projects (the item's stream identity). */
  itemKey: string;
  projectId: number;
}

/** What one event did to one item. */
export type Transition = Target &
  (
    | { kind: 'created'; /** null: a flag, numbered by the fold */ itemId: string | null; state: ItemState }
    | { kind: 'updated'; patch: ItemState; /** PostHog's activity name; default `updated` */ activity?: string }
    | { kind: 'deleted' }
    /** The item never became visible (its flag could not be created): its history goes with it. */
    | { kind: 'abandoned' }
  );

/** Drops the fields an event leaves out (undefined), renaming the rest to the API's names. */
function patchOf(data: Record<string, unknown>, names: Readonly<Record<string, string>>): ItemState {
  const out: ItemState = {};
  for (const [field, name] of Object.entries(names)) if (data[field] !== undefined) out[name] = data[field];
  return out;
}

const SEALED = 'enc:v1:';
/**
 * A secret as the fold keeps it: a fingerprint of the sealed value, so a changed secret still shows
 * as a change without the log's ciphertext, let alone the secret, reaching the activity tables.
 */
export const SECRET_MARK = 'masked:';
const fingerprint = (value: unknown) => SECRET_MARK + createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/** A batch export destination with its credentials (by type, and anything sealed) fingerprinted. */
export function maskedDestination(destination: { type: string; config: Record<string, unknown> }): ItemState {
  const secrets = new Set(destinationSecretFields(destination.type));
  const config: ItemState = {};
  for (const [key, value] of Object.entries(destination.config))
    config[key] = secrets.has(key) || (typeof value === 'string' && value.startsWith(SEALED)) ? fingerprint(value) : value;
  return { type: destination.type, config };
}

const EXPERIMENT_FIELDS = {
  name: 'name',
  description: 'description',
  startDate: 'start_date',
  endDate: 'end_date',
  parameters: 'parameters',
  secondaryMetrics: 'secondary_metrics',
  filters: 'filters',
  archived: 'archived',
} as const;

/** An experiment's links as its PATCH gave them (`saved_metrics_ids`), compared as a whole list. */
const linksShown = (links: readonly SavedMetricLink[]) => links.map((l) => ({ id: l.savedMetricId, metadata: l.metadata }));

const EXPORT_FIELDS = {
  name: 'name',
  interval: 'interval',
  startAt: 'start_at',
  endAt: 'end_at',
  hogqlQuery: 'hogql_query',
  schema: 'schema',
  lastPausedAt: 'last_paused_at',
} as const;

/** The item an event is about and what it did to it, in the API's field names. */
export function transitionOf(e: ActivityEvent): Transition {
  switch (e.type) {
    case 'FeatureFlagCreated':
    case 'FeatureFlagUpdated':
    case 'FeatureFlagDeleted': {
      const target = { scope: 'FeatureFlag' as const, itemKey: `${e.data.projectId}/${e.data.key}`, projectId: e.data.projectId };
      if (e.type === 'FeatureFlagDeleted') return { ...target, kind: 'deleted' };
      const names = { name: 'name', filters: 'filters', active: 'active', ensureExperienceContinuity: 'ensure_experience_continuity' };
      if (e.type === 'FeatureFlagUpdated') return { ...target, kind: 'updated', patch: patchOf(e.data, names) };
      return { ...target, kind: 'created', itemId: null, state: { key: e.data.key, ...patchOf(e.data, names) } };
    }
    case 'ExperimentCreated':
    case 'ExperimentUpdated':
    case 'ExperimentExposureCohortSet':
    case 'ExperimentDeleted':
    case 'ExperimentCreationAbandoned': {
      const target = { scope: 'Experiment' as const, itemKey: String(e.data.experimentId), projectId: e.data.projectId };
      switch (e.type) {
        case 'ExperimentCreated': {
          const d = e.data;
          const state = { name: d.name, description: d.description, start_date: d.startDate, end_date: d.endDate, feature_flag_key: d.featureFlagKey };
          const rest = { parameters: d.parameters ?? null, secondary_metrics: d.secondaryMetrics ?? null, filters: d.filters ?? null };
          const links = d.savedMetrics?.length ? { saved_metrics: linksShown(d.savedMetrics) } : {};
          return { ...target, kind: 'created', itemId: target.itemKey, state: { ...state, ...rest, archived: d.archived, exposure_cohort: null, ...links } };
        }
        case 'ExperimentUpdated': {
          const patch = patchOf(e.data, EXPERIMENT_FIELDS);
          if (e.data.savedMetrics) patch.saved_metrics = linksShown(e.data.savedMetrics);
          return { ...target, kind: 'updated', patch };
        }
        case 'ExperimentExposureCohortSet':
          return { ...target, kind: 'updated', patch: { exposure_cohort: e.data.cohortId } };
        case 'ExperimentDeleted':
          return { ...target, kind: 'deleted' };
        default:
          return { ...target, kind: 'abandoned' };
      }
    }
    case 'ExperimentSavedMetricCreated':
    case 'ExperimentSavedMetricUpdated':
    case 'ExperimentSavedMetricDeleted': {
      const target = { scope: 'ExperimentSavedMetric' as const, itemKey: String(e.data.savedMetricId), projectId: e.data.projectId };
      switch (e.type) {
        case 'ExperimentSavedMetricCreated':
          return { ...target, kind: 'created', itemId: target.itemKey, state: { ...e.data.fields } };
        case 'ExperimentSavedMetricUpdated':
          return { ...target, kind: 'updated', patch: { ...e.data.changes } };
        default:
          return { ...target, kind: 'deleted' };
      }
    }
    case 'ActionCreated':
    case 'ActionUpdated':
    case 'ActionDeleted':
    case 'ActionRestored': {
      const target = { scope: 'Action' as const, itemKey: String(e.data.actionId), projectId: e.data.projectId };
      switch (e.type) {
        case 'ActionCreated':
          return { ...target, kind: 'created', itemId: target.itemKey, state: { ...e.data.fields } };
        case 'ActionUpdated':
          return { ...target, kind: 'updated', patch: { ...e.data.changes } };
        // PostHog logs a soft delete as "deleted" and a restore as "updated" (its handle_action_change).
        case 'ActionDeleted':
          return { ...target, kind: 'deleted' };
        default:
          return { ...target, kind: 'updated', patch: { deleted: false, _deleted: false } };
      }
    }
    case 'CohortCreated':
      return {
        scope: 'Cohort',
        itemKey: String(e.data.cohortId),
        projectId: e.data.projectId,
        kind: 'created',
        itemId: String(e.data.cohortId),
        state: { name: e.data.name, description: e.data.description, filters: e.data.filters, experiment: e.data.experimentId },
      };
    case 'CohortDeleted':
      return { scope: 'Cohort', itemKey: String(e.data.cohortId), projectId: e.data.projectId, kind: 'deleted' };
    case 'SurveyCreated':
    case 'SurveyUpdated':
    case 'SurveyTargetingFlagChanged':
    case 'SurveyDeleted': {
      const target = { scope: 'Survey' as const, itemKey: e.data.surveyId, projectId: e.data.projectId };
      switch (e.type) {
        case 'SurveyCreated': {
          const state = { ...e.data.fields, internal_targeting_flag_key: e.data.internalFlagKey, targeting_flag_key: e.data.targetingFlagKey };
          return { ...target, kind: 'created', itemId: e.data.surveyId, state };
        }
        case 'SurveyUpdated':
          return { ...target, kind: 'updated', patch: { ...e.data.changes } };
        case 'SurveyTargetingFlagChanged':
          return { ...target, kind: 'updated', patch: { targeting_flag_key: e.data.targetingFlagKey } };
        default:
          return { ...target, kind: 'deleted' };
      }
    }
    case 'EarlyAccessFeatureCreated':
    case 'EarlyAccessFeatureUpdated':
    case 'EarlyAccessFeatureAbandoned':
    case 'EarlyAccessFeatureDeleted': {
      const target = { scope: 'EarlyAccessFeature' as const, itemKey: e.data.featureId, projectId: e.data.projectId };
      switch (e.type) {
        case 'EarlyAccessFeatureCreated':
          return { ...target, kind: 'created', itemId: e.data.featureId, state: { ...e.data.fields, feature_flag_key: e.data.flagKey } };
        case 'EarlyAccessFeatureUpdated':
          return { ...target, kind: 'updated', patch: { ...e.data.changes } };
        case 'EarlyAccessFeatureAbandoned':
          return { ...target, kind: 'abandoned' };
        default:
          return { ...target, kind: 'deleted' };
      }
    }
    default:
      return exportTransition(e);
  }
}

type ExportEvent = Extract<ActivityEvent, { type: (typeof batchExportEvents)[number]['type'] }>;

function exportTransition(e: ExportEvent): Transition {
  const target = { scope: 'BatchExport' as const, itemKey: e.data.id, projectId: e.data.projectId };
  switch (e.type) {
    case 'BatchExportCreated': {
      const d = e.data;
      const state = {
        name: d.name,
        model: d.model,
        destination: maskedDestination(d.destination),
        interval: d.interval,
        paused: d.paused,
        start_at: d.startAt,
        end_at: d.endAt,
        hogql_query: d.hogqlQuery,
        schema: d.schema,
      };
      return { ...target, kind: 'created', itemId: d.id, state };
    }
    case 'BatchExportUpdated': {
      const patch = patchOf(e.data, EXPORT_FIELDS);
      if (e.data.destination) patch.destination = maskedDestination(e.data.destination);
      return { ...target, kind: 'updated', patch };
    }
    case 'BatchExportPaused':
      return { ...target, kind: 'updated', patch: { paused: true } };
    case 'BatchExportUnpaused':
      return { ...target, kind: 'updated', patch: { paused: false } };
    case 'BatchExportBackfillRequested':
      return { ...target, kind: 'updated', activity: 'backfill requested', patch: { backfill: { id: e.data.backfillId, start_at: e.data.startAt, end_at: e.data.endAt } } };
    case 'BatchExportDeleted':
      return { ...target, kind: 'deleted' };
    default: {
      const never: never = e;
      return never;
    }
  }
}

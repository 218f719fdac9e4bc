import { createHash } from 'node:crypto';
import { stableJson } from '../../../projections/json';
import { validationError } from '../../errors';
import { ExperimentMetric, FunnelMetric, LEGACY_METRIC_KINDS } from './schema';

/**
 * The experiment's current fields (compat §15.1), checked with PostHog's messages
 * (products/experiments/backend/experiment_service.py). Each check throws a validation error.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (message: string, attr: string | null = null): never => {
  throw validationError(message, attr, 'invalid_input');
};

/** Stable over everything that changes the numbers: not the uuid, the name or the fingerprint itself. */
export function metricFingerprint(metric: Record<string, unknown>): string {
  const { uuid: _u, name: _n, fingerprint: _f, ...definition } = metric;
  return createHash('sha256').update(stableJson(definition)).digest('hex');
}

/** A list of `ExperimentMetric`s; the server adds `uuid` (when missing) and `fingerprint`. */
export function checkMetrics(raw: unknown, attr: string, newUuid: () => string): Record<string, unknown>[] {
  if (raw === null) return [];
  if (!Array.isArray(raw)) return fail('Metrics must be a list', attr);
  return raw.map((metric: unknown, i) => {
    if (!isObject(metric)) return fail(`Invalid metric at index ${i}: must be a dict`, attr);
    const kind = metric.kind;
    if (typeof kind === 'string' && (LEGACY_METRIC_KINDS as readonly string[]).includes(kind)) {
      fail(`Invalid metric at index ${i}: legacy metric kind '${kind}' is no longer supported for new experiments. Use 'ExperimentMetric' instead.`, attr);
    }
    if (kind !== 'ExperimentMetric') fail(`Invalid metric at index ${i}: metric kind must be 'ExperimentMetric'`, attr);
    const parsed = ExperimentMetric.safeParse(metric);
    if (!parsed.success) {
      const errors = parsed.error.issues.slice(0, 15).map((issue) => ({ loc: issue.path.map(String), msg: issue.message }));
      fail(`Invalid metric at index ${i}: ${JSON.stringify(errors)}.`, attr);
    }
    if (metric.metric_type === 'funnel' && FunnelMetric.parse(metric).series.length === 0) {
      fail(`Invalid metric at index ${i}: funnel metrics require at least one step. The experiment exposure event is added as the initial step automatically.`, attr);
    }
    const uuid = typeof metric.uuid === 'string' && metric.uuid !== '' ? metric.uuid : newUuid();
    const withUuid = { ...metric, uuid };
    return { ...withUuid, fingerprint: metricFingerprint(withUuid) };
  });
}

export function checkNoDuplicateUuids(...lists: readonly (readonly Record<string, unknown>[])[]): void {
  const seen = new Set<unknown>();
  for (const metric of lists.flat()) {
    if (seen.has(metric.uuid)) fail(`Duplicate metric UUID: '${String(metric.uuid)}'. Each metric must have a unique UUID.`);
    seen.add(metric.uuid);
  }
}

/**
 * The display order: when not given it follows the metrics (kept order first, new ones appended);
 * when given, every metric's uuid must appear in it.
 */
export function settleOrdering(given: unknown, metrics: readonly Record<string, unknown>[], previous: readonly string[] | null, attr: string): string[] {
  const uuids = metrics.map((m) => String(m.uuid));
  if (given === undefined || given === null) {
    const kept = (previous ?? []).filter((u) => uuids.includes(u));
    return [...kept, ...uuids.filter((u) => !kept.includes(u))];
  }
  if (!Array.isArray(given) || !given.every((u) => typeof u === 'string')) return fail('Expected a list of metric UUIDs.', attr);
  const missing = uuids.filter((u) => !given.includes(u));
  if (missing.length) fail(`Every metric must appear in ${attr}; missing: ${missing.join(', ')}`, attr);
  return given.filter((u, i) => uuids.includes(u) && given.indexOf(u) === i);
}

const VALID_STATS_METHODS = ['bayesian', 'frequentist'];

export function checkStatsConfig(raw: unknown, variantKeys: readonly string[]): Record<string, unknown> | null {
  if (raw === null || raw === undefined) return null;
  if (!isObject(raw)) return fail('Expected a JSON object.', 'stats_config');
  const method = raw.method;
  if (method !== undefined && method !== null && !VALID_STATS_METHODS.includes(String(method))) {
    fail(`Invalid stats method: '${String(method)}'. Must be one of: ${VALID_STATS_METHODS.join(', ')}`, 'stats_config');
  }
  const baseline = raw.baseline_variant_key;
  if (baseline !== undefined && baseline !== null && variantKeys.length && !variantKeys.includes(String(baseline))) {
    fail(`Invalid baseline_variant_key: '${String(baseline)}'. Must be one of: ${[...variantKeys].sort().join(', ')}`, 'stats_config');
  }
  return raw;
}

const EXPOSURE_CONFIG_KINDS = ['ExperimentEventExposureConfig', 'ActionsNode'];
const EXPOSURE_CONFIG_HINT =
  "Expected either an event-based config like {'kind': 'ExperimentEventExposureConfig', 'event': '<event_name>', 'properties': []} or an action-based config like {'kind': 'ActionsNode', 'id': <action_id>}.";
const typeName = (v: unknown) => (v === null ? 'NoneType' : Array.isArray(v) ? 'list' : typeof v === 'string' ? 'str' : typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'float') : typeof v === 'boolean' ? 'bool' : 'dict');

export function checkExposureCriteria(raw: unknown): Record<string, unknown> | null {
  if (raw === null || raw === undefined) return null;
  if (!isObject(raw)) {
    return fail(`exposure_criteria must be an object, got ${typeName(raw)}. Expected shape: {'filterTestAccounts': <bool>, 'exposure_config': <object>}.`, 'exposure_criteria');
  }
  if ('filterTestAccounts' in raw && typeof raw.filterTestAccounts !== 'boolean') {
    fail(`exposure_criteria.filterTestAccounts must be a boolean, got ${typeName(raw.filterTestAccounts)}: ${JSON.stringify(raw.filterTestAccounts)}.`, 'exposure_criteria');
  }
  const handling = raw.multiple_variant_handling;
  if (handling !== undefined && handling !== null && handling !== 'exclude' && handling !== 'first_seen') {
    fail(`exposure_criteria.multiple_variant_handling must be one of ['exclude', 'first_seen'].`, 'exposure_criteria');
  }
  if ('exposure_config' in raw && raw.exposure_config !== null) {
    const config = raw.exposure_config;
    if (!isObject(config)) return fail(`exposure_criteria.exposure_config must be an object, got ${typeName(config)}. ${EXPOSURE_CONFIG_HINT}`, 'exposure_criteria');
    const kind = config.kind ?? 'ExperimentEventExposureConfig';
    if (!EXPOSURE_CONFIG_KINDS.includes(String(kind))) {
      fail(`exposure_criteria.exposure_config.kind must be one of ['ExperimentEventExposureConfig', 'ActionsNode'], got '${String(kind)}'. ${EXPOSURE_CONFIG_HINT}`, 'exposure_criteria');
    }
    const valid = kind === 'ActionsNode' ? Number.isInteger(config.id) : typeof config.event === 'string' && (config.properties === undefined || Array.isArray(config.properties));
    if (!valid) fail(`Invalid exposure_criteria.exposure_config (kind='${String(kind)}'). ${EXPOSURE_CONFIG_HINT}`, 'exposure_criteria');
  }
  return raw;
}

export const CONCLUSIONS = ['won', 'lost', 'inconclusive', 'stopped_early', 'invalid'] as const;

export function checkConclusion(raw: unknown): string | null {
  if (raw === null || raw === '') return null;
  if (typeof raw !== 'string' || !(CONCLUSIONS as readonly string[]).includes(raw)) {
    return fail(`"${String(raw)}" is not a valid choice.`, 'conclusion');
  }
  return raw;
}

/** PostHog checks saved metric ids against its saved-metric table; none can be stored here yet. */
export function checkSavedMetricsIds(raw: unknown): void {
  if (raw === null || raw === undefined) return;
  if (!Array.isArray(raw)) fail('Saved metrics must be a list', 'saved_metrics_ids');
  for (const saved of raw as unknown[]) {
    if (!isObject(saved)) fail('Saved metric must be an object', 'saved_metrics_ids');
    const s = saved as Record<string, unknown>;
    if (!('id' in s)) fail('Saved metric must have an id', 'saved_metrics_ids');
    if ('metadata' in s && !isObject(s.metadata)) fail('Metadata must be an object', 'saved_metrics_ids');
    if ('metadata' in s && !('type' in (s.metadata as object))) fail('Metadata must have a type key', 'saved_metrics_ids');
  }
  if ((raw as unknown[]).length) fail('Saved metric does not exist or does not belong to this project', 'saved_metrics_ids');
}

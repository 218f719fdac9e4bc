import { createHash } from 'node:crypto';
import { stableJson } from '../../../projections/json';
import type { SavedMetricLink } from '../../../streams';
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
  return raw.map((given: unknown, i) => {
    const metric = checkMetric(given, `Invalid metric at index ${i}: `, attr, ' for new experiments');
    const uuid = typeof metric.uuid === 'string' && metric.uuid !== '' ? metric.uuid : newUuid();
    const withUuid = { ...metric, uuid };
    return { ...withUuid, fingerprint: metricFingerprint(withUuid) };
  });
}

/**
 * One current `ExperimentMetric` (PostHog's parse_and_validate_metric): `prefix` places it in the
 * request ("Invalid metric at index 2: " in a list, "Invalid metric: " for a saved metric), and
 * the legacy refusal names what the old kinds are refused for.
 */
export function checkMetric(metric: unknown, prefix: string, attr: string, legacyFor = ''): Record<string, unknown> {
  if (!isObject(metric)) return fail(`${prefix}must be a dict`, attr);
  const kind = metric.kind;
  if (typeof kind === 'string' && (LEGACY_METRIC_KINDS as readonly string[]).includes(kind)) {
    fail(`${prefix}legacy metric kind '${kind}' is no longer supported${legacyFor}. Use 'ExperimentMetric' instead.`, attr);
  }
  if (kind !== 'ExperimentMetric') fail(`${prefix}metric kind must be 'ExperimentMetric'`, attr);
  const parsed = ExperimentMetric.safeParse(metric);
  if (!parsed.success) {
    const errors = parsed.error.issues.slice(0, 15).map((issue) => ({ loc: issue.path.map(String), msg: issue.message }));
    fail(`${prefix}${JSON.stringify(errors)}.`, attr);
  }
  if (metric.metric_type === 'funnel' && FunnelMetric.parse(metric).series.length === 0) {
    fail(`${prefix}funnel metrics require at least one step. The experiment exposure event is added as the initial step automatically.`, attr);
  }
  return metric;
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

/**
 * The shape of `saved_metrics_ids` with PostHog's messages; null means "leave the links". Whether
 * each id names a saved metric of the project is the service's check (it reads the read model).
 */
export function checkSavedMetricsIds(raw: unknown): SavedMetricLink[] | undefined {
  const attr = 'saved_metrics_ids';
  if (raw === null || raw === undefined) return undefined;
  if (!Array.isArray(raw)) return fail('Saved metrics must be a list', attr);
  const seen = new Set<number>();
  return raw.map((saved: unknown) => {
    if (!isObject(saved)) return fail('Saved metric must be an object', attr);
    if (!('id' in saved)) fail('Saved metric must have an id', attr);
    if ('metadata' in saved && !isObject(saved.metadata)) fail('Metadata must be an object', attr);
    if ('metadata' in saved && !('type' in (saved.metadata as object))) fail('Metadata must have a type key', attr);
    const id = saved.id;
    // Not an id any saved metric can have: refused as PostHog refuses an unknown one.
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return fail(`Saved metric ${JSON.stringify(id)} does not exist or does not belong to this project`, attr);
    if (seen.has(id)) fail(`Saved metric ${id} is given more than once`, attr);
    seen.add(id);
    return { savedMetricId: id, metadata: isObject(saved.metadata) ? saved.metadata : {} };
  });
}

import type { FlagDefinition, EvaluateAllResult } from '../types';
import { evaluateAll } from '../evaluate';
import type { FlagRequest } from './flag-request';
import { whenReady, type MaybePromise } from '../../runtime/loading-cache';

/** What evaluation needs from the stores; each call is one indexed read (or an in-memory hit). */
export interface FlagDataSource {
  /** From memory once loaded: a promise only while a project's definitions are being (re)loaded. */
  definitions: (projectId: number) => MaybePromise<FlagDefinition[]>;
  groupTypeMapping: (projectId: number) => Record<number, string>;
  personProperties: (projectId: number, distinctId: string) => Record<string, unknown> | null;
  groupProperties: (projectId: number, groupTypeIndex: number, groupKey: string) => Record<string, unknown> | null;
  hashKeyOverride: (projectId: number, distinctId: string) => string | null;
  /** Read from the store; asked only when some flag of the project has a cohort condition. */
  personCohorts: (projectId: number, distinctId: string) => MaybePromise<ReadonlySet<number>>;
  geoProperties: (ip: string | undefined) => Record<string, unknown> | null;
  /** Cohorts in the shape SDKs evaluate locally (id -> property group); absent until cohorts exist. */
  cohortDefinitions?: (projectId: number) => Record<string, unknown>;
}

/**
 * A value whose every read throws: flags that need it fail alone, the others still evaluate.
 * Every trap throws, not just `get`: the operators test presence with `hasOwnProperty`, which
 * goes through `getOwnPropertyDescriptor`, and a trap left out would read as "property missing"
 * and silently turn a failed lookup into a wrong `false`.
 */
function failing(err: unknown): Record<string, unknown> {
  const raise = (): never => {
    throw err;
  };
  return new Proxy({}, { get: raise, has: raise, getOwnPropertyDescriptor: raise, ownKeys: raise });
}

/** A cohort set whose membership test throws, for the same reason as `failing`. */
function failingSet(err: unknown): ReadonlySet<number> {
  const raise = (): never => {
    throw err;
  };
  return new Proxy(new Set<number>(), { get: raise });
}

const NO_MAPPING: Record<number, string> = Object.freeze({});
const NO_COHORTS = { cohorts: new Set<number>() as ReadonlySet<number> };

/** Whether anything in a flag's filters is a cohort condition (any depth, so no set kind is missed). */
function namesCohort(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(namesCohort);
  if (value === null || typeof value !== 'object') return false;
  if ((value as { type?: unknown }).type === 'cohort') return true;
  return Object.values(value).some(namesCohort);
}

// Per definitions array (one per cached load), so the filters are walked once per change, not per request.
const cohortUse = new WeakMap<FlagDefinition[], boolean>();
function usesCohorts(definitions: FlagDefinition[]): boolean {
  let uses = cohortUse.get(definitions);
  if (uses === undefined) {
    uses = definitions.some((d) => namesCohort(d.filters));
    cohortUse.set(definitions, uses);
  }
  return uses;
}

/**
 * The person's cohorts, looked up only when a flag could read them (requests of projects without
 * cohort flags never pay for the query). A failed lookup becomes a set whose reads throw, so only
 * the flags that read it fail.
 */
function cohortsFor(
  source: FlagDataSource,
  definitions: FlagDefinition[],
  projectId: number,
  distinctId: string,
): MaybePromise<{ cohorts: ReadonlySet<number> }> {
  // Boxed: a promise must never resolve to the failing set itself (resolving reads its `then`).
  if (!usesCohorts(definitions)) return NO_COHORTS;
  try {
    const cohorts = source.personCohorts(projectId, distinctId);
    return cohorts instanceof Promise
      ? cohorts.then(
          (set) => ({ cohorts: set }),
          (err: unknown) => ({ cohorts: failingSet(err) }),
        )
      : { cohorts };
  } catch (err) {
    return { cohorts: failingSet(err) };
  }
}

/**
 * Builds the evaluation context of one request: stored properties overwritten by the request's, the
 * distinct id as a person property, GeoIP filling gaps, then evaluates every (or the asked) flag.
 * Each lookup fails on its own: a broken person read errors only the flags that read person
 * properties, a broken hash-key-override read only the flags that need experience continuity.
 */
export function evaluateRequest(
  source: FlagDataSource,
  projectId: number,
  req: FlagRequest & { distinct_id: string },
  ip: string | undefined,
  now: Date,
): MaybePromise<EvaluateAllResult> {
  return whenReady(source.definitions(projectId), (definitions) =>
    whenReady(cohortsFor(source, definitions, projectId, req.distinct_id), ({ cohorts }) =>
      evaluateWith(definitions, cohorts, source, projectId, req, ip, now),
    ),
  );
}

function evaluateWith(
  loaded: FlagDefinition[],
  personCohorts: ReadonlySet<number>,
  source: FlagDataSource,
  projectId: number,
  req: FlagRequest & { distinct_id: string },
  ip: string | undefined,
  now: Date,
): EvaluateAllResult {
  const distinctId = req.distinct_id;
  let definitions = loaded;
  const geo = req.geoip_disable ? null : source.geoProperties(ip);
  let personProperties: Record<string, unknown>;
  try {
    const stored = source.personProperties(projectId, distinctId);
    personProperties = { distinct_id: distinctId, ...geo, ...stored, ...req.person_properties };
  } catch (err) {
    personProperties = failing(err);
  }

  // The override is one more read; only pay for it when some flag asks for continuity.
  let hashKeyOverride: string | null = req.$anon_distinct_id ?? null;
  let continuityFailed = false;
  if (definitions.some((d) => d.ensure_experience_continuity)) {
    try {
      hashKeyOverride = source.hashKeyOverride(projectId, distinctId) ?? hashKeyOverride;
    } catch {
      continuityFailed = true;
    }
  }
  const groups = req.groups ?? {};
  // Without groups or group properties in the request no group is ever read (a group flag is then
  // `no_group_type` whatever the mapping says), so the mapping read is skipped.
  const needsMapping = Object.keys(groups).length > 0 || Object.keys(req.group_properties ?? {}).length > 0;
  const mapping = needsMapping ? source.groupTypeMapping(projectId) : NO_MAPPING;
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const [index, type] of Object.entries(mapping)) {
    const key = groups[type];
    if (key === undefined) continue;
    try {
      const stored = source.groupProperties(projectId, Number(index), key);
      groupProperties[type] = { ...stored, ...req.group_properties?.[type] };
    } catch (err) {
      groupProperties[type] = failing(err);
    }
  }
  for (const [type, props] of Object.entries(req.group_properties ?? {})) groupProperties[type] ??= { ...props };

  const wanted = req.flag_keys_to_evaluate ? new Set(req.flag_keys_to_evaluate) : null;
  // Without its override a continuity flag could land the person in a different bucket than
  // before: leave it out and report the error rather than serve a possibly flipped value.
  let skippedContinuity = false;
  if (continuityFailed) {
    const keep = (d: FlagDefinition) => !d.ensure_experience_continuity || !d.active || d.deleted === true;
    skippedContinuity = definitions.some((d) => !keep(d) && (!wanted || wanted.has(d.key)));
    definitions = definitions.filter(keep);
  }
  const result = evaluateAll(
    definitions,
    { distinctId, personProperties, groups, groupProperties, groupTypeMapping: mapping, hashKeyOverride, personCohorts, now },
    req.flag_keys_to_evaluate ? { flagKeys: req.flag_keys_to_evaluate } : undefined,
  );
  // `flags` is a getter of the result's class: a spread copy would not carry it.
  return skippedContinuity ? { ...result, flags: result.flags, errorsWhileComputingFlags: true } : result;
}

import type { FlagDefinition, EvaluateAllResult } from '../types';
import { evaluateAll } from '../evaluate';
import type { FlagRequest } from './flag-request';

/** What evaluation needs from the stores; each call is one indexed read (or an in-memory hit). */
export interface FlagDataSource {
  definitions: (projectId: number) => FlagDefinition[];
  groupTypeMapping: (projectId: number) => Record<number, string>;
  personProperties: (projectId: number, distinctId: string) => Record<string, unknown> | null;
  groupProperties: (projectId: number, groupTypeIndex: number, groupKey: string) => Record<string, unknown> | null;
  hashKeyOverride: (projectId: number, distinctId: string) => string | null;
  personCohorts: (projectId: number, distinctId: string) => ReadonlySet<number>;
  geoProperties: (ip: string | undefined) => Record<string, unknown> | null;
  /** Cohorts in the shape SDKs evaluate locally (id -> property group); absent until cohorts exist. */
  cohortDefinitions?: (projectId: number) => Record<string, unknown>;
}

/** A value whose every read throws: flags that need it fail alone, the others still evaluate. */
function failing(err: unknown): Record<string, unknown> {
  return new Proxy({}, { get: () => { throw err; }, has: () => { throw err; } });
}

/**
 * Builds the evaluation context of one request: stored properties overwritten by the request's, the
 * distinct id as a person property, GeoIP filling gaps, then evaluates every (or the asked) flag.
 */
export function evaluateRequest(
  source: FlagDataSource,
  projectId: number,
  req: FlagRequest & { distinct_id: string },
  ip: string | undefined,
  now: Date,
): EvaluateAllResult {
  const distinctId = req.distinct_id;
  const geo = req.geoip_disable ? null : source.geoProperties(ip);
  let personProperties: Record<string, unknown>;
  let hashKeyOverride: string | null = null;
  let personCohorts: ReadonlySet<number> = new Set();
  try {
    const stored = source.personProperties(projectId, distinctId) ?? {};
    personProperties = { distinct_id: distinctId, ...geo, ...stored, ...req.person_properties };
    hashKeyOverride = source.hashKeyOverride(projectId, distinctId) ?? req.$anon_distinct_id ?? null;
    personCohorts = source.personCohorts(projectId, distinctId);
  } catch (err) {
    personProperties = failing(err);
  }
  const mapping = source.groupTypeMapping(projectId);
  const groups = req.groups ?? {};
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const [index, type] of Object.entries(mapping)) {
    const key = groups[type];
    if (key === undefined) continue;
    try {
      const stored = source.groupProperties(projectId, Number(index), key) ?? {};
      groupProperties[type] = { ...stored, ...req.group_properties?.[type] };
    } catch (err) {
      groupProperties[type] = failing(err);
    }
  }
  for (const [type, props] of Object.entries(req.group_properties ?? {})) groupProperties[type] ??= { ...props };

  return evaluateAll(
    source.definitions(projectId),
    { distinctId, personProperties, groups, groupProperties, groupTypeMapping: mapping, hashKeyOverride, personCohorts, now },
    req.flag_keys_to_evaluate ? { flagKeys: req.flag_keys_to_evaluate } : undefined,
  );
}

import type { FlagDefinition, EvaluateAllResult, EvaluationContext } from '../types';
import { evaluateAll } from '../evaluate';
import type { FlagRequest } from './flag-request';
import { whenReady, type MaybePromise } from '../../runtime/loading-cache';
import { memoizable, type AnswerMemo } from './answer-memo';

/**
 * What evaluation needs from the stores; each call is one indexed read or an in-memory hit. A read
 * answers at once when it holds the value and with a promise only while loading it, so a request
 * whose every read is a hit is evaluated in the turn it arrived.
 */
export interface FlagDataSource {
  /** From memory once loaded: a promise only while a project's definitions are being (re)loaded. */
  definitions: (projectId: number) => MaybePromise<FlagDefinition[]>;
  groupTypeMapping: (projectId: number) => MaybePromise<Record<number, string>>;
  personProperties: (projectId: number, distinctId: string) => MaybePromise<Record<string, unknown> | null>;
  groupProperties: (projectId: number, groupTypeIndex: number, groupKey: string) => MaybePromise<Record<string, unknown> | null>;
  hashKeyOverride: (projectId: number, distinctId: string) => MaybePromise<string | null>;
  /** Read from the store; asked only when some flag of the project has a cohort condition. */
  personCohorts: (projectId: number, distinctId: string) => MaybePromise<ReadonlySet<number>>;
  geoProperties: (ip: string | undefined) => Record<string, unknown> | null;
  /** Cohorts in the shape SDKs evaluate locally (id -> property group); absent until cohorts exist. */
  cohortDefinitions?: (projectId: number) => Record<string, unknown>;
  /**
   * Remembers answers per person between changes (see answer-memo.ts). Only for a source whose
   * values are never changed in place: a changed person, group, mapping or set of definitions is
   * a new object.
   */
  memo?: AnswerMemo;
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
const NO_COHORTS: ReadonlySet<number> = new Set<number>();
/** Stands in for a value until its read settles (the request is evaluated only after all have). */
const UNREAD: Record<string, unknown> = Object.freeze({});

/** Whether anything in a flag's filters is a cohort condition (any depth, so no set kind is missed). */
function namesCohort(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(namesCohort);
  if (value === null || typeof value !== 'object') return false;
  if ((value as { type?: unknown }).type === 'cohort') return true;
  return Object.values(value).some(namesCohort);
}

/** Which optional reads a project's flags can make use of. */
interface Needs {
  cohorts: boolean;
  continuity: boolean;
}

// Per definitions array (one per cached load), so the filters are walked once per change, not per request.
const needsOf = new WeakMap<FlagDefinition[], Needs>();
function needs(definitions: FlagDefinition[]): Needs {
  let found = needsOf.get(definitions);
  if (found === undefined) {
    found = {
      cohorts: definitions.some((d) => namesCohort(d.filters)),
      continuity: definitions.some((d) => d.ensure_experience_continuity),
    };
    needsOf.set(definitions, found);
  }
  return found;
}

/** What one request read from the stores, each lookup apart: a failed one is held as a value whose reads throw. */
interface RequestData {
  /** The person's stored properties as read (null: no such person); UNREAD until then. */
  stored: Record<string, unknown> | null;
  geo: Record<string, unknown> | null;
  /** The person read's error, when it failed. */
  personFailure: { error: unknown } | null;
  /** Whether any read failed (its answer is then never remembered). */
  failed: boolean;
  /** For each group read, in mapping order: the request's key, then the stored properties as read. */
  groupInputs: unknown[];
  personCohorts: ReadonlySet<number>;
  hashKeyOverride: string | null;
  continuityFailed: boolean;
  mapping: Record<number, string>;
  /** The stored groups of the request, by type, in mapping order. */
  groupProperties: Record<string, Record<string, unknown>>;
}

/**
 * One lookup: `use` gets its value, or `fail` its error (thrown or rejected). At once when the
 * value is at hand; otherwise once it settles, a promise of which joins `pending` (it never rejects).
 */
function read<T>(pending: Promise<unknown>[], call: () => MaybePromise<T>, use: (value: T) => void, fail: (err: unknown) => void): void {
  let value: MaybePromise<T>;
  try {
    value = call();
  } catch (err) {
    fail(err);
    return;
  }
  // The settled promise holds nothing: resolving to a failing proxy would read its throwing `then`.
  if (value instanceof Promise)
    pending.push(
      value.then(
        (loaded) => {
          use(loaded);
        },
        (err: unknown) => {
          fail(err);
        },
      ),
    );
  else use(value);
}

/**
 * Builds the evaluation context of one request: stored properties overwritten by the request's, the
 * distinct id as a person property, GeoIP filling gaps, then evaluates every (or the asked) flag.
 * Each lookup fails on its own: a broken person read errors only the flags that read person
 * properties, a broken hash-key-override read only the flags that need experience continuity.
 * The definitions and the group type mapping are the exceptions: without them nothing is evaluated.
 */
export function evaluateRequest(
  source: FlagDataSource,
  projectId: number,
  req: FlagRequest & { distinct_id: string },
  ip: string | undefined,
  now: Date,
): MaybePromise<EvaluateAllResult> {
  return whenReady(source.definitions(projectId), (definitions) =>
    whenReady(gather(source, definitions, projectId, req, ip), (data) => {
      const memo = source.memo;
      if (memo === undefined || !rememberable(definitions, data, req)) return evaluateWith(definitions, data, req, now);
      const inputs = [definitions, data.stored, data.geo, data.mapping, data.hashKeyOverride, ...data.groupInputs];
      const remembered = memo.get(projectId, req.distinct_id, inputs);
      if (remembered !== undefined) return remembered;
      const result = evaluateWith(definitions, data, req, now);
      if (!result.errorsWhileComputingFlags) memo.set(projectId, req.distinct_id, inputs, result);
      return result;
    }),
  );
}

/**
 * Whether the answer follows from what was read alone: no failed read, nothing sent in the
 * request that evaluation reads besides the distinct id and the group keys, no clock or cohorts.
 */
function rememberable(definitions: FlagDefinition[], data: RequestData, req: FlagRequest): boolean {
  return !data.failed && isEmpty(req.person_properties) && isEmpty(req.group_properties) && !req.flag_keys_to_evaluate && memoizable(definitions);
}

function isEmpty(value: Record<string, unknown> | null | undefined): boolean {
  if (value === null || value === undefined) return true;
  for (const _ in value) return false;
  return true;
}

/** Starts every read the request needs at once; the data itself when all were hits. */
function gather(
  source: FlagDataSource,
  definitions: FlagDefinition[],
  projectId: number,
  req: FlagRequest & { distinct_id: string },
  ip: string | undefined,
): MaybePromise<RequestData> {
  const distinctId = req.distinct_id;
  const pending: Promise<unknown>[] = [];
  const data: RequestData = {
    stored: UNREAD,
    geo: req.geoip_disable ? null : source.geoProperties(ip),
    personFailure: null,
    failed: false,
    groupInputs: [],
    personCohorts: NO_COHORTS,
    hashKeyOverride: req.$anon_distinct_id ?? null,
    continuityFailed: false,
    mapping: NO_MAPPING,
    groupProperties: {},
  };
  const { cohorts, continuity } = needs(definitions);
  // Requests of projects without cohort flags never pay for the cohort query.
  if (cohorts)
    read(
      pending,
      () => source.personCohorts(projectId, distinctId),
      (set) => {
        data.personCohorts = set;
      },
      (err) => {
        data.personCohorts = failingSet(err);
        data.failed = true;
      },
    );
  read(
    pending,
    () => source.personProperties(projectId, distinctId),
    (stored) => {
      data.stored = stored;
    },
    (error) => {
      data.personFailure = { error };
      data.failed = true;
    },
  );
  // The override is one more read; only pay for it when some flag asks for continuity.
  if (continuity)
    read(
      pending,
      () => source.hashKeyOverride(projectId, distinctId),
      (key) => {
        data.hashKeyOverride = key ?? data.hashKeyOverride;
      },
      () => {
        data.continuityFailed = true;
        data.failed = true;
      },
    );
  // Without groups or group properties in the request no group is ever read (a group flag is then
  // `no_group_type` whatever the mapping says), so the mapping read is skipped.
  const needsMapping = !isEmpty(req.groups) || !isEmpty(req.group_properties);
  if (needsMapping) {
    const mapping = source.groupTypeMapping(projectId);
    if (mapping instanceof Promise)
      pending.push(
        mapping.then((loaded) => {
          const groupReads: Promise<unknown>[] = [];
          readGroups(groupReads, source, projectId, req, loaded, data);
          return Promise.all(groupReads);
        }),
      );
    else readGroups(pending, source, projectId, req, mapping, data);
  }
  return pending.length === 0 ? data : Promise.all(pending).then(() => data);
}

/** The stored properties of each group the request names whose type the project knows. */
function readGroups(
  pending: Promise<unknown>[],
  source: FlagDataSource,
  projectId: number,
  req: FlagRequest,
  mapping: Record<number, string>,
  data: RequestData,
): void {
  data.mapping = mapping;
  const groups = req.groups ?? {};
  // for-in visits the indexes in the order Object.entries does, without its array of pairs per request.
  for (const index in mapping) {
    if (!Object.hasOwn(mapping, index)) continue;
    const groupTypeIndex = Number(index);
    const type = mapping[groupTypeIndex];
    const key = groups[type];
    if (key === undefined) continue;
    // Its place taken now, so the order does not depend on which read answers first.
    data.groupProperties[type] = UNREAD;
    const at = data.groupInputs.push(key, UNREAD) - 1;
    read(
      pending,
      () => source.groupProperties(projectId, groupTypeIndex, key),
      (stored) => {
        data.groupProperties[type] = { ...stored, ...req.group_properties?.[type] };
        data.groupInputs[at] = stored;
      },
      (err) => {
        data.groupProperties[type] = failing(err);
        data.failed = true;
      },
    );
  }
}

/**
 * What a request's flags are evaluated against: the definitions (less those that could not be
 * evaluated faithfully) and the context built from what was read. `/flags` evaluates it; the
 * evaluation-reasons route explains it. A past state (as of a time) is another RequestState.
 */
export interface RequestState {
  definitions: FlagDefinition[];
  context: EvaluationContext;
  /** Some asked flag was left out (its continuity key could not be read): report an error. */
  skippedContinuity: boolean;
}

function stateOf(loaded: FlagDefinition[], data: RequestData, req: FlagRequest & { distinct_id: string }, now: Date): RequestState {
  let definitions = loaded;
  const groupProperties = data.groupProperties;
  for (const [type, props] of Object.entries(req.group_properties ?? {})) groupProperties[type] ??= { ...props };

  const wanted = req.flag_keys_to_evaluate ? new Set(req.flag_keys_to_evaluate) : null;
  // Without its override a continuity flag could land the person in a different bucket than
  // before: leave it out and report the error rather than serve a possibly flipped value.
  let skippedContinuity = false;
  if (data.continuityFailed) {
    const keep = (d: FlagDefinition) => !d.ensure_experience_continuity || !d.active || d.deleted === true;
    skippedContinuity = definitions.some((d) => !keep(d) && (!wanted || wanted.has(d.key)));
    definitions = definitions.filter(keep);
  }
  const personProperties = data.personFailure
    ? failing(data.personFailure.error)
    : { distinct_id: req.distinct_id, ...data.geo, ...data.stored, ...req.person_properties };
  const context: EvaluationContext = {
    distinctId: req.distinct_id,
    personProperties,
    groups: req.groups ?? {},
    groupProperties,
    groupTypeMapping: data.mapping,
    hashKeyOverride: data.hashKeyOverride,
    personCohorts: data.personCohorts,
    now,
  };
  return { definitions, context, skippedContinuity };
}

/** The state a request is evaluated against, read exactly as `evaluateRequest` reads it (never from the memo). */
export function requestState(
  source: FlagDataSource,
  projectId: number,
  req: FlagRequest & { distinct_id: string },
  ip: string | undefined,
  now: Date,
): MaybePromise<RequestState> {
  return whenReady(source.definitions(projectId), (definitions) => whenReady(gather(source, definitions, projectId, req, ip), (data) => stateOf(definitions, data, req, now)));
}

function evaluateWith(
  loaded: FlagDefinition[],
  data: RequestData,
  req: FlagRequest & { distinct_id: string },
  now: Date,
): EvaluateAllResult {
  const { definitions, context, skippedContinuity } = stateOf(loaded, data, req, now);
  const result = evaluateAll(definitions, context, req.flag_keys_to_evaluate ? { flagKeys: req.flag_keys_to_evaluate } : undefined);
  // `flags` is a getter of the result's class: a spread copy would not carry it.
  return skippedContinuity ? { ...result, flags: result.flags, errorsWhileComputingFlags: true } : result;
}

import { contracts } from '../../streams';
import { cohortQueries } from '../../projections/cohorts-queries';
import { INGESTION } from '../../projections/ingestion/names';
import type { AnalyticsChoice } from '../config';
import { AnalyticsFold } from './analytics-fold';
import { afterAnalyticsFold } from './analytics-export-source';
import { openAnalytics } from './open-analytics';
import { accessQueries, activityQueries, allProjections, featureFlagQueries, ingestionQueries } from '../../projections';
import { type ReadModelProjection, type CachedReadModel, type StoreName } from '../store/read-model-projection';
import { AccessService } from '../access';
import { openExperiments } from '../experiments';
import { personCohorts } from '../cohorts';
import { openSurveys } from '../surveys';
import { openEarlyAccess } from '../early-access';
import { exportPolicy, openBatchExports, type ExportPolicy } from '../exports';
import { sqliteExportSource } from '../adapters/sqlite/export-source';
import { SecretBox } from '../exports/secrets';
import { loadSecretKey } from './secret-key';
import { FlagService } from '../flags/management';
import { AnswerMemo, FlagDefinitionCache, ProjectCache, type FlagDataSource } from '../flags/serving';
import { IngestPipeline } from '../ingest/pipeline';
import { directTransport, validatedTransport, type IngestTransport } from '../store/ingest-transport';
import { ContractedEventLog } from '../store/contracted-log';
import { openSqlite, type Durability, type SqliteDatabase } from '../adapters/sqlite/open';
import { openSqliteLog, type OpenedEventLog } from './event-log';
import { claimDataDir } from './log-identity';
import type { ProjectionWorkerData } from './projection-worker';
import { SqliteReadModelStore } from '../adapters/sqlite/read-models';
import { createEmbeddedTables } from './embedded-tables';
import type { ReadModelStore } from '../store/read-models';
import { ProjectionRunner } from '../runtime/projection-runner';
import type { Runner } from '../store/runner';
import { FollowingRunner } from '../runtime/following-runner';
import { LeasedRunner } from '../runtime/leased-runner';
import { ChangeRecorder } from '../runtime/change-log';
import type { LeasedRoleEvents } from '../runtime/leased-role';
import type { Leases } from '../store/leases';
import type { SharedReadModels } from './read-models';
import { RemoteProjectionRunner } from '../runtime/worker/remote-runner';
import { storeFiles } from '../runtime/store-files';
import { startCheckpointer } from '../adapters/sqlite/checkpointer';
import { prepareDataDir } from '../store/data-dir';
import { projectTokenCache } from './project-token-cache';
import { openRecordings } from '../recordings';
import { RemoteConfigCache } from '../remote-config';
import { whenReady } from '../runtime/loading-cache';
import { TimeTravel } from '../time-travel';

/** How often the checkpointer thread copies the WALs back (~35 MB of log WAL at 80k events/s). */
export const CHECKPOINT_MS = 1000;
/** Its CPU niceness: the copying waits for a core that neither requests nor the fold want. */
export const CHECKPOINT_NICE = 19;
/** With a checkpointer, writers checkpoint themselves only past these WAL sizes: 160 MB for the log (4 KB pages)... */
export const LOG_BACKSTOP_CHECKPOINT_PAGES = 40_000;
/** ... and 256 MB for each read-model store (16 KB pages). */
export const MODEL_BACKSTOP_CHECKPOINT_PAGES = 16_000;

export interface RuntimeOptions {
  dataDir: string;
  /** An event log opened by the caller (EVENT_LOG=postgres://…); default: the SQLite log in dataDir. */
  eventLog?: OpenedEventLog;
  durability?: Durability;
  /** Where read models live; defaults to dataDir (replay points this at a fresh directory). */
  readModelDir?: string;
  /**
   * The read models in readModelDir are rebuilt from scratch and redone, not recovered, after a
   * crash (replay): their SQLite file is written without fsyncs (see OpenOptions.scratch).
   */
  scratchReadModels?: boolean;
  /** Read models shared by every process (READ_MODELS=postgres://…), opened by the caller; default: SQLite files in readModelDir. */
  sharedReadModels?: SharedReadModels;
  /**
   * With shared read models, whether this process may fold them (the `projections` role): it then
   * folds while it holds the projections lease. Without it the process only follows the store.
   */
  folding?: { leases: Leases; events?: LeasedRoleEvents };
  /** Told once while a process without the lease waits for the read models to be created. */
  onWaitingForFold?: () => void;
  projections?: readonly ReadModelProjection[];
  now?: () => Date;
  onProjectionError?: (name: string, err: Error) => void;
  /** Run the projections in a worker thread (the server does; CLI and unit tests fold in-thread). */
  projectionsInWorker?: boolean;
  /** Niceness of that worker thread (see PROJECTIONS_NICE). */
  projectionsNice?: number;
  /** GeoIP for ingestion enrichment and flag evaluation; absent means none. */
  geo?: GeoLookup;
  /** The key sealing destination secrets (see resolveSecretKey); default: the data directory's own. */
  secretKey?: Buffer;
  /** Export root, allowed hosts, backfill cap; default: `$dataDir/exports`, no private hosts, 10,000 runs. */
  exportPolicy?: ExportPolicy;
  /** How ingestion reaches the log (NATS_URL: a broker, consumed by the ingest role); default: direct appends. Closed with the runtime. */
  ingestTransport?: IngestTransport;
  /** Where the events the events API and experiments read live (CLICKHOUSE_URL); default: the read models' events table. */
  analytics?: AnalyticsChoice;
  /** Told when the analytics projection (ClickHouse) fails a batch; it tries again. */
  onAnalyticsError?: (err: Error) => void;
}

/** The slice of the GeoIP reader the runtime needs. */
export interface GeoLookup {
  lookup(ip: string): Record<string, unknown> | null;
  enrich(properties: Record<string, unknown>, ip: string | null | undefined): Record<string, unknown>;
}

export { storeFiles };

/** The runtime: the event log (SQLite by default), SQLite read-model stores, the projection runner and the services. */
export function openRuntime(options: RuntimeOptions) {
  const files = storeFiles(options.dataDir);
  const spec = options.eventLog?.spec ?? { kind: 'sqlite' as const, path: files.log };
  // The log a DATA_DIR belongs to is checked first (a more precise refusal than a missing log file);
  // a server log's claim is written once the directory is known to be usable.
  if (spec.kind === 'sqlite') claimDataDir(options.dataDir, spec);
  // With a log elsewhere, DATA_DIR holds only read models and keys: there is no log file to miss.
  prepareDataDir(options.dataDir, spec.kind === 'sqlite' ? files.log : options.dataDir);
  if (spec.kind !== 'sqlite') claimDataDir(options.dataDir, spec);
  const modelFiles = storeFiles(options.readModelDir ?? options.dataDir);
  // With a projection thread, a checkpointer thread copies the WALs back: the request and fold
  // threads only do so past their backstops, far beyond the usual 4000 pages.
  const opened =
    options.eventLog ??
    openSqliteLog(files.log, {
      durability: options.durability,
      now: options.now,
      backstopCheckpointPages: options.projectionsInWorker ? LOG_BACKSTOP_CHECKPOINT_PAGES : undefined,
    });
  const rawLog = opened.log;
  const log = new ContractedEventLog(rawLog, contracts);
  const shared = options.sharedReadModels;
  // The embedded files, when the read models are this process's own.
  const stores: Record<StoreName, SqliteDatabase> | null = shared
    ? null
    : {
        readmodels: openSqlite(modelFiles.readmodels, { durability: options.durability, scratch: options.scratchReadModels }),
      };
  const readModels: Record<StoreName, ReadModelStore> = stores
    ? { readmodels: new SqliteReadModelStore(stores.readmodels) }
    : shared!.stores;
  const projections = options.projections ?? allProjections;
  let runner: Runner;
  let ready: Promise<void> = Promise.resolve();
  let stopThreads: () => Promise<void> = async () => {};
  let sub0 = { unsubscribe() {} };
  if (!stores) {
    // Shared read models: fold them only while holding the lease (one process at a time), otherwise follow.
    const follower = new FollowingRunner(log, readModels, projections, { notifications: opened.notifications, onWaitingForFold: options.onWaitingForFold });
    const folding = options.folding;
    const changes = new ChangeRecorder();
    // In a worker thread as for SQLite (the fold's CPU off the thread answering requests), else in this one.
    const fold = () =>
      options.projectionsInWorker
        ? new RemoteProjectionRunner(projections, log, {
            entry: new URL('./projection-worker.ts', import.meta.url),
            data: { log: opened.spec, readModels: shared!.spec, recordChanges: true, nice: options.projectionsNice } satisfies ProjectionWorkerData,
          })
        : new ProjectionRunner(log, readModels, projections, { onError: options.onProjectionError, notifications: opened.notifications, changes });
    const leased = folding && new LeasedRunner(follower, fold, folding.leases, folding.events);
    runner = leased || follower;
    ready = runner.ready;
    stopThreads = async () => {
      await leased?.close();
      await shared!.close();
    };
  } else if (options.projectionsInWorker) {
    const data: ProjectionWorkerData = {
      log: opened.spec,
      readModels: { kind: 'sqlite', files: { readmodels: modelFiles.readmodels } },
      durability: options.durability,
      nice: options.projectionsNice,
      backstopCheckpointPages: MODEL_BACKSTOP_CHECKPOINT_PAGES,
    };
    const remote = new RemoteProjectionRunner(projections, log, { entry: new URL('./projection-worker.ts', import.meta.url), data });
    sub0 = opened.notifications.appended$.subscribe((position) => remote.appended(position));
    runner = remote;
    ready = remote.ready;
    const walFiles = [...(opened.spec.kind === 'sqlite' ? [opened.spec.path] : []), modelFiles.readmodels];
    const checkpointer = startCheckpointer({ files: walFiles, periodMs: CHECKPOINT_MS, nice: CHECKPOINT_NICE });
    stopThreads = async () => {
      await remote.close();
      await checkpointer.close();
    };
  } else {
    createEmbeddedTables(projections, stores);
    const local = new ProjectionRunner(log, readModels, projections, {
      onError: options.onProjectionError,
      notifications: opened.notifications,
    });
    runner = local;
    ready = local.ready.catch(() => undefined);
  }
  // Queries of converted contexts read through the port's session, on the same connection.
  const session = readModels.readmodels.session;
  const queries = {
    access: accessQueries(session),
    flags: featureFlagQueries(session),
    cohorts: cohortQueries(session),
    ingestion: ingestionQueries(session),
    activity: activityQueries(session),
  };
  const waitFor = (names: string[]) => (position: number) => runner.waitFor(position, names);

  const flagCache = new FlagDefinitionCache((projectId) => queries.flags.allLive(projectId));
  const personCache = new ProjectCache((projectId, distinctId) => queries.ingestion.personPropertiesByDistinctId(projectId, distinctId));
  const overrideCache = new ProjectCache((projectId, distinctId) => queries.ingestion.hashKeyOverrideFor(projectId, distinctId));
  // Group properties by "index/key", and the group type mapping under the key '' (both ingestion's).
  const groupCache = new ProjectCache(async (projectId, indexAndKey) => {
    const slash = indexAndKey.indexOf('/');
    return (await queries.ingestion.group(projectId, Number(indexAndKey.slice(0, slash)), indexAndKey.slice(slash + 1)))?.group_properties ?? null;
  });
  const mappingCache = new ProjectCache(async (projectId) =>
    Object.fromEntries((await queries.ingestion.groupTypeMappings(projectId)).map((m) => [m.group_type_index, m.group_type])) as Record<number, string>,
  );
  const remoteConfig = new RemoteConfigCache(async (projectId) => {
    const project = await queries.access.project(projectId);
    return project && { token: project.api_token, settings: JSON.parse(project.settings) };
  });
  const cached: Record<CachedReadModel, { invalidate(projectId: number): void; invalidateAll(): void }> = {
    'flag-definitions': flagCache,
    'person-properties': personCache,
    'hash-key-overrides': overrideCache,
    'group-properties': groupCache,
    'group-type-mappings': mappingCache,
    'remote-config': remoteConfig,
  };
  // Each projection names the in-memory copies its changes make stale.
  const invalidated = new Map(projections.map((p) => [p.name, (p.invalidates ?? []).map((name) => cached[name])]));
  const sub = runner.applied$.subscribe(({ projection, events, unknown }) => {
    for (const cache of invalidated.get(projection) ?? [])
      if (unknown) cache.invalidateAll();
      else for (const e of events) if (e.metadata.projectId !== null) cache.invalidate(e.metadata.projectId);
  });

  const tokens = projectTokenCache(async (token) => (await queries.access.projectByToken(token))?.id);
  const access = new AccessService({ log, queries: queries.access, waitFor: waitFor(['access']) });
  const flags = new FlagService({
    log,
    flags: queries.flags,
    groupTypeIndexes: async (projectId) => (await queries.ingestion.groupTypeMappings(projectId)).map((m) => m.group_type_index),
    cohortExists: async (projectId, cohortId) => (await queries.cohorts.byId(projectId, cohortId)) !== undefined,
    waitFor: waitFor(['feature_flags']),
  });
  const geo = options.geo;
  const transport = options.ingestTransport ? validatedTransport(options.ingestTransport, (records) => log.validate(records)) : directTransport(log);
  const ingest = new IngestPipeline({ log, transport, projectIdForToken: tokens, enrich: geo && ((p, ip) => geo.enrich(p, ip)), now: options.now });
  const flagSource: FlagDataSource = {
    definitions: (projectId) => whenReady(flagCache.get(projectId), (entry) => entry.definitions),
    groupTypeMapping: (projectId) => mappingCache.get(projectId, ''),
    personProperties: (projectId, distinctId) => personCache.get(projectId, distinctId),
    groupProperties: (projectId, index, key) => groupCache.get(projectId, `${index}/${key}`),
    hashKeyOverride: (projectId, distinctId) => overrideCache.get(projectId, distinctId),
    // Cohort membership, looked up only when a flag has a cohort condition.
    personCohorts: personCohorts(queries.cohorts.cohortIdsOf),
    geoProperties: (ip) => (geo && ip ? geo.lookup(ip) : null),
    // Every value above is replaced, never changed in place, when what it holds changes.
    memo: new AnswerMemo(),
  };

  // The events' store for the events API and experiments: the read models' own table, or a
  // ClickHouse server fed by its own projection of the log, which follows the ingestion fold.
  const chosenAnalytics = openAnalytics(options.analytics, readModels.readmodels);
  const analytics = chosenAnalytics.store;
  if (chosenAnalytics.folded && !stores) throw new Error('a ClickHouse analytics store (CLICKHOUSE_URL, ANALYTICS=chdb) with shared read models (READ_MODELS=postgres://…) is not supported yet: its projection needs one writer');
  const analyticsFold = chosenAnalytics.folded
    ? new AnalyticsFold({
        log,
        store: chosenAnalytics.folded,
        readModels: session,
        ingested: (position) => runner.waitFor(position, [INGESTION]),
        onError: options.onAnalyticsError,
      })
    : null;
  const sub1 = analyticsFold ? runner.applied$.subscribe(({ projection }) => projection === INGESTION && analyticsFold.appended()) : null;
  if (analyticsFold) ready = ready.then(() => analyticsFold.start());
  const experiments = openExperiments({ log, session: readModels.readmodels.session, analytics, runner, flags, flagQueries: queries.flags, cohortQueries: queries.cohorts, now: options.now });
  const surveys = openSurveys({ log, session: readModels.readmodels.session, flags, flagQueries: queries.flags, waitFor: waitFor(['surveys']) });
  const earlyAccess = openEarlyAccess({ log, session: readModels.readmodels.session, flags, flagQueries: queries.flags, waitFor: (position, names) => runner.waitFor(position, names) });
  const exports = openBatchExports({
    log,
    readmodels: readModels.readmodels.session,
    runner,
    now: options.now,
    // On ClickHouse the exports read the analytics store, once its fold has reached the log's head.
    exportSource: shared
      ? shared.exportSource
      : analyticsFold && chosenAnalytics.exportSource
        ? afterAnalyticsFold(log, analyticsFold, chosenAnalytics.exportSource)
        : sqliteExportSource(modelFiles.readmodels),
    secrets: new SecretBox(options.secretKey ?? loadSecretKey(options.dataDir)),
    policy: options.exportPolicy ?? exportPolicy({ dataDir: options.dataDir }),
  });
  // Recording on/off follows what remote config tells posthog-js (`sessionRecording: false` when the
  // project has not opted in), from the same in-memory cache: no read-model query per request.
  const recordingAccepted = (projectId: number) => whenReady(remoteConfig.get(projectId), (entry) => entry !== undefined && entry.fields.sessionRecording !== false);
  const recordings = openRecordings({ log, transport, session: readModels.readmodels.session, projectIdForToken: tokens, recordingAccepted, now: options.now });
  // Resources as they stood: folded in a private in-memory store per request, whatever the live store's engine.
  const timeTravel = new TimeTravel({
    log,
    scratch: () => new SqliteReadModelStore(openSqlite(':memory:')),
    live: session,
    hasTable: (name) => readModels.readmodels.hasTable(name),
  });
  return {
    timeTravel,
    analytics,
    /** The projection feeding a ClickHouse analytics store (null with the embedded one). */
    analyticsFold,
    experiments,
    surveys,
    earlyAccess,
    exports,
    recordings,
    files,
    log,
    rawLog,
    /** Where the log lives, as a worker thread or a replay reopens it. */
    logSpec: opened.spec,
    /** This process's append notices: another thread's appends are told here (notify) to reach its projections. */
    notifications: opened.notifications,
    /** Whether writes can be made durable (log file present and the same, disk not full, writable; log server reachable). */
    storage: opened.storage,
    /** The embedded SQLite read-model files (null when the read models are shared). */
    stores,
    /** Whether the read models are shared by several processes (another may fold them). */
    sharedReadModels: shared !== undefined,
    /** The read models behind the read-model port. */
    readModels,
    runner,
    queries,
    access,
    flags,
    flagCache,
    remoteConfig,
    ingest,
    /** How ingestion reaches the log (for `/_health`). */
    transport,
    flagSource,
    projectIdForToken: tokens,
    /** Resolves once the read-model tables exist (the worker has set them up). */
    ready,
    async close() {
      sub.unsubscribe();
      sub0.unsubscribe();
      sub1?.unsubscribe();
      experiments.close();
      await analyticsFold?.stop();
      await chosenAnalytics.folded?.close();
      runner.stop();
      await stopThreads();
      await transport.close();
      await log.close();
      stores?.readmodels.close();
    },
  };
}

export type Runtime = ReturnType<typeof openRuntime>;

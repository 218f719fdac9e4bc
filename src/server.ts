import { analyticsChoice, type Config } from './config';
import { buildApp } from './http';
import { geoLookup, openRuntimeOn, writeCredentialsFile, type GeoLookup } from './app';
import { bootstrapIfEmpty } from './app/first-start';
import { replayedPoint } from './app/replay-until';
import { resolveSecretKey } from './app/secret-key';
import { logDestination } from './app/log-output';
import { openLeases } from './app/leases';
import { startProjections } from './app/start-projections';
import { startExportProcesses } from './exports/processes';
import { exportPolicyFromConfig } from './exports';
import { runWhileLeased, type StartedRole } from './runtime/leased-role';
import { openIngestTransport, startIngestRole } from './app/ingest-transport';

type App = Awaited<ReturnType<typeof buildApp>>;

/** The lease the process running the export scheduler and worker holds. */
const EXPORTS_LEASE = 'exports';
/** The lease of the process appending what capture published to NATS (one holder keeps per-project order). */
const INGEST_LEASE = 'ingest';

/**
 * Opens the runtime, catches projections up, bootstraps an empty store, then serves HTTP. The
 * projection thread loads its code while this thread reads the GeoIP databases and builds the
 * routes: these overlap instead of running one after the other.
 *
 * ROLES decides what this process does: `api` listens; `projections` folds shared read models while
 * it holds their lease (own read models are always folded here); `exports` runs the scheduler and
 * worker, under a lease when the log is shared, so one process of a deployment runs them.
 */
export async function startServer(config: Config) {
  const roles = config.ROLES;
  const secretKey = resolveSecretKey({ configured: config.SECRET_KEY, shared: config.EVENT_LOG.kind !== 'sqlite' });
  const geoLoaded = geoLookup(config.GEOIP_DIR, (msg) => process.stderr.write(`warning: ${msg}\n`));
  // Nothing looks an address up before the server listens, and it listens once this is loaded.
  let loaded: GeoLookup | undefined;
  const geo: GeoLookup = { lookup: (ip) => loaded!.lookup(ip), enrich: (properties, ip) => loaded!.enrich(properties, ip) };
  const leases = await openLeases(config.EVENT_LOG, config.READ_MODELS);
  // The runtime may report before the app (and its logger) exists: such lines wait for it.
  let logReady: (app: App) => void = () => {};
  const appBuilt = new Promise<App>((resolve) => (logReady = resolve));
  const later = (write: (app: App) => void) => void appBuilt.then(write);
  const roleEvents = {
    onAcquired: (name: string) => later((a) => a.log.info({ lease: name }, 'this process took the lease and runs the role')),
    onLost: (name: string, err: Error) => later((a) => a.log.warn({ lease: name, err }, 'lease lost: role stopped, waiting to take it again')),
    onStartFailed: (name: string, err: Error) => later((a) => a.log.error({ lease: name, err }, 'role failed to start')),
  };
  const ingestTransport = await openIngestTransport(config).catch(async (err: unknown) => {
    await leases.close();
    throw err;
  });
  const runtime = await openRuntimeOn(config.EVENT_LOG, {
    ingestTransport,
    dataDir: config.DATA_DIR,
    readModels: config.READ_MODELS,
    analytics: analyticsChoice(config),
    onAnalyticsError: (err) => later((a) => a.log.error({ err }, 'analytics projection (ClickHouse) failed a batch: retrying')),
    folding: roles.has('projections') ? { leases, events: roleEvents } : undefined,
    onWaitingForFold: () => later((a) => a.log.info('waiting for a process with the projections role to create the shared read models')),
    secretKey,
    geo,
    durability: config.DURABILITY,
    // Read-only: nothing is folded, so no projection thread either.
    projectionsInWorker: config.PROJECTIONS_IN_WORKER && !config.READ_ONLY,
    projectionsNice: config.PROJECTIONS_NICE,
    exportPolicy: exportPolicyFromConfig(config),
    onProjectionError: (name, err) => later((a) => a.log.error({ err, projection: name }, 'projection stopped')),
  }).catch(async (err: unknown) => {
    await ingestTransport?.close();
    await leases.close();
    throw err;
  });
  // A logger that cannot write drops lines instead of throwing (see log-output).
  const app = await buildApp(runtime, config, { logger: { level: config.LOG_LEVEL, stream: logDestination } });
  logReady(app);
  loaded = await geoLoaded;
  if (config.READ_ONLY) {
    // The directory is served as it stands: no fold, no bootstrap, no exports.
    app.addHook('onClose', async () => {
      await runtime.close();
      await leases.close();
    });
    const point = replayedPoint(config.DATA_DIR);
    app.log.info({ readOnly: true, asOf: point }, point ? `read-only: serving the read side as of ${point.until} (log position ${point.position})` : 'read-only: serving DATA_DIR as it stands');
    if (roles.has('api')) await app.listen({ port: config.PORT, host: config.HOST });
    return { app, runtime };
  }
  await startProjections(runtime, { catchUp: false });
  if (runtime.sharedReadModels) {
    // Several processes start together on a shared store: none of them creates an organization
    // on its own, or each would create one. The operator does, once.
    if (!(await runtime.queries.access.firstOrganization()))
      app.log.warn('the shared store has no organization yet: create it once with `npm run cli -- bootstrap` (same EVENT_LOG, READ_MODELS and SECRET_KEY)');
  } else {
    const credentials = await bootstrapIfEmpty(runtime, config.EVENT_LOG.kind === 'sqlite' ? null : leases);
    if (credentials) {
      const path = writeCredentialsFile(config.DATA_DIR, credentials);
      if (config.PRINT_CREDENTIALS) {
        process.stdout.write(
          `\nFirst start: created a default organization and project.\n` +
            `  project API key (public, for SDKs):   ${credentials.project_api_key}\n` +
            `  personal API key (secret, all scopes): ${credentials.personal_api_key}\n` +
            `  saved to ${path} (mode 0600); this is the only time the personal key is printed.\n\n`,
        );
      }
    }
  }
  const startExports = async (): Promise<StartedRole> =>
    startExportProcesses(runtime.exports, { config, logger: app.log });
  const exportsRole = !roles.has('exports') || !config.EXPORTS_ENABLED
    ? null
    : config.EVENT_LOG.kind === 'sqlite'
      ? await startExports()
      : runWhileLeased(leases, EXPORTS_LEASE, startExports, roleEvents);
  const startIngest = () =>
    startIngestRole(
      config,
      { logSpec: runtime.logSpec, appended: (position) => runtime.notifications.notify(position), nice: config.PROJECTIONS_NICE },
      (message, err) => app.log.error({ err }, message),
    );
  // With the SQLite log, processes sharing a DATA_DIR share no lease store: run `ingest` in one of them.
  const ingestRole = !roles.has('ingest')
    ? null
    : config.EVENT_LOG.kind === 'sqlite'
      ? await startIngest()
      : runWhileLeased(leases, INGEST_LEASE, startIngest, roleEvents);
  app.addHook('onClose', async () => {
    await ingestRole?.stop();
    await exportsRole?.stop();
    await runtime.close();
    await leases.close();
  });
  if (roles.has('api')) await app.listen({ port: config.PORT, host: config.HOST });
  else {
    await app.ready();
    app.log.info({ roles: [...roles] }, 'running without the api role: not listening');
  }
  return { app, runtime };
}

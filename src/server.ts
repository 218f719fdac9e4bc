import type { Config } from './config';
import { bootstrap } from './access';
import { buildApp } from './http';
import { geoLookup, openRuntimeOn, writeCredentialsFile, type GeoLookup } from './app';
import { resolveSecretKey } from './app/secret-key';
import { logDestination } from './app/log-output';
import { startExportProcesses } from './exports/processes';
import { exportPolicyFromConfig } from './exports';

/**
 * Opens the runtime, catches projections up, bootstraps an empty store, then serves HTTP. The
 * projection thread loads its code while this thread reads the GeoIP databases and builds the
 * routes: these overlap instead of running one after the other.
 */
export async function startServer(config: Config) {
  const secretKey = resolveSecretKey({ configured: config.SECRET_KEY, shared: config.EVENT_LOG.kind !== 'sqlite' });
  const geoLoaded = geoLookup(config.GEOIP_DIR, (msg) => process.stderr.write(`warning: ${msg}\n`));
  // Nothing looks an address up before the server listens, and it listens once this is loaded.
  let loaded: GeoLookup | undefined;
  const geo: GeoLookup = { lookup: (ip) => loaded!.lookup(ip), enrich: (properties, ip) => loaded!.enrich(properties, ip) };
  const runtime = await openRuntimeOn(config.EVENT_LOG, {
    dataDir: config.DATA_DIR,
    secretKey,
    geo,
    durability: config.DURABILITY,
    projectionsInWorker: config.PROJECTIONS_IN_WORKER,
    projectionsNice: config.PROJECTIONS_NICE,
    exportPolicy: exportPolicyFromConfig(config),
    onProjectionError: (name, err) => app.log.error({ err, projection: name }, 'projection stopped'),
  });
  // A logger that cannot write drops lines instead of throwing (see log-output).
  const app = await buildApp(runtime, config, { logger: { level: config.LOG_LEVEL, stream: logDestination } });
  loaded = await geoLoaded;
  await runtime.ready;
  await runtime.runner.catchUp();
  runtime.runner.start();
  if (!(await runtime.queries.access.firstOrganization())) {
    const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
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
  const exportProcesses = startExportProcesses(runtime.exports, { config, logger: app.log });
  app.addHook('onClose', async () => {
    await exportProcesses.stop();
    await runtime.close();
  });
  await app.listen({ port: config.PORT, host: config.HOST });
  return { app, runtime };
}

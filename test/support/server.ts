import type { FastifyInstance } from 'fastify';
import { analyticsChoice, loadConfig, type Config } from '../../src/config';
import { bootstrap, type Credentials } from '../../src/access';
import { buildApp } from '../../src/http';
import { geoLookup, openRuntime, type Runtime } from '../../src/app';
import { exportPolicyFromConfig } from '../../src/exports';
import { tempDir } from './temp-dir';
import type { IngestTransport } from '../../src/store/ingest-transport';

export interface TestServer {
  url: string;
  app: FastifyInstance;
  runtime: Runtime;
  credentials: Credentials;
  config: Config;
  dataDir: string;
  /** fetch relative to the server, with the bootstrap personal key unless `key` says otherwise. */
  api: (path: string, init?: RequestInit & { key?: string | null }) => Promise<Response>;
  close: () => Promise<void>;
}

/** A real server on a free port over a fresh data directory, bootstrapped. */
export async function startTestServer(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    beforeListen?: (app: FastifyInstance) => void;
    /** How ingestion reaches the log (a NATS transport); default: direct appends. */
    ingestTransport?: IngestTransport;
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDir('server-');
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', ...options.env });
  const geo = await geoLookup(config.GEOIP_DIR, () => {});
  // Tests fold in-thread unless they ask for the worker thread the real server uses.
  const runtime = openRuntime({
    dataDir,
    durability: config.DURABILITY,
    geo,
    projectionsInWorker: options.env?.PROJECTIONS_IN_WORKER === 'true',
    // EXPORT_FILE_ROOT / EXPORT_ALLOWED_HOSTS / EXPORT_BACKFILL_MAX_RUNS in `env` reach the exports as in `npm start`.
    exportPolicy: exportPolicyFromConfig(config),
    ingestTransport: options.ingestTransport,
    analytics: analyticsChoice(config),
  });
  await runtime.ready;
  await runtime.runner.catchUp();
  runtime.runner.start();
  const app = await buildApp(runtime, config, { logger: false });
  options.beforeListen?.(app);
  const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    app,
    runtime,
    credentials,
    config,
    dataDir,
    api: (path, init = {}) => {
      const { key = credentials.personal_api_key, headers, ...rest } = init;
      const h = new Headers(headers);
      if (key) h.set('authorization', `Bearer ${key}`);
      if (rest.body && !h.has('content-type')) h.set('content-type', 'application/json');
      return fetch(url + path, { ...rest, headers: h });
    },
    close: async () => {
      await app.close();
      await runtime.close();
    },
  };
}

import { openRuntimeOn, type Runtime } from '../app';
import { openIngestTransport } from '../app/ingest-transport';
import { openLeases } from '../app/leases';
import { resolveSecretKey } from '../app/secret-key';
import { startProjections } from '../app/start-projections';
import { tightenDataDir } from '../runtime/private-files';
import { analyticsChoice, loadConfig, type Config } from '../config';

export interface Session {
  runtime: Runtime;
  config: Config;
  dataDir: string;
}

/** The configuration, with DATA_DIR made private (one warning when it was not): every command that opens the store starts here. */
export function cliConfig(): Config {
  const config = loadConfig();
  const warning = tightenDataDir(config.DATA_DIR);
  if (warning) process.stderr.write(`warning: ${warning}\n`);
  return config;
}

/**
 * Opens the configured store for one command, caught up with the log, and closes it afterwards.
 * With shared read models the CLI folds them itself only when no service process does (it takes
 * the projections lease when free): `bootstrap` works before any service has started.
 */
export async function withRuntime<T>(
  work: (session: Session) => Promise<T>,
  options: {
    ingest?: boolean;
    follow?: boolean;
    analytics?: boolean;
    /** Runs once the store is open, before its read models are caught up (work to overlap with that fold). */
    opened?: (session: Session) => Promise<void>;
  } = {},
): Promise<T> {
  const config = cliConfig();
  const dataDir = config.DATA_DIR;
  const secretKey = resolveSecretKey({ configured: config.SECRET_KEY, shared: config.EVENT_LOG.kind !== 'sqlite' });
  const leases = await openLeases(config.EVENT_LOG, config.READ_MODELS);
  // Ingesting commands (`import`) go the way capture does: through NATS when NATS_URL is set (the ingest role appends).
  const ingestTransport = options.ingest
    ? await openIngestTransport(config).catch(async (err: unknown) => {
        await leases.close();
        throw err;
      })
    : undefined;
  const runtime = await openRuntimeOn(config.EVENT_LOG, { dataDir, durability: config.DURABILITY, secretKey, readModels: config.READ_MODELS, folding: { leases }, ingestTransport,
    // Only commands that read or check the analytics store (verify) feed it: one writer beside a running service's.
    analytics: options.analytics ? analyticsChoice(config) : undefined }).catch(
    async (err: unknown) => {
      await ingestTransport?.close();
      await leases.close();
      throw err;
    },
  );
  try {
    await options.opened?.({ runtime, config, dataDir });
    await startProjections(runtime, { catchUp: true, follow: options.follow });
    return await work({ runtime, config, dataDir });
  } finally {
    await runtime.close();
    await leases.close();
  }
}

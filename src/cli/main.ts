import { ConfigError, loadConfig } from '../config';
import { openRuntimeOn } from '../app';
import { openIngestTransport } from '../app/ingest-transport';
import { resolveSecretKey } from '../app/secret-key';
import { openLeases } from '../app/leases';
import { startProjections } from '../app/start-projections';
import { UsageError } from './args';
import { bootstrapCommand } from './bootstrap';
import { keysCommand } from './keys';
import { projectsCommand } from './projects';
import { replayCommand, verifyCommand } from './replay';
import { importCommand } from './import';

const HELP = `usage: npm run cli -- <command>
  bootstrap [--json]        create the default org, project and an all-scopes personal key
  keys create|list|revoke   personal API keys
  projects create|list      projects
  import FILE.jsonl|-       historical migration, in order, resumable (progress on stderr)
  replay [--out DIR]        rebuild every read model from the log, print digests
  verify                    replay and compare with the live read models (exit 1 on a difference)
Environment: DATA_DIR (default ./data), DURABILITY, EVENT_LOG (sqlite, a postgres:// URL or an esdb:// string),
  READ_MODELS (sqlite or a postgres:// URL), SECRET_KEY (required with a shared EVENT_LOG).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(HELP + '\n');
    return command ? 0 : 2;
  }
  const config = loadConfig();
  const dataDir = config.DATA_DIR;
  if (command === 'replay') {
    await replayCommand(dataDir, rest, config.EVENT_LOG);
    return 0;
  }
  const secretKey = resolveSecretKey({ configured: config.SECRET_KEY, shared: config.EVENT_LOG.kind !== 'sqlite' });
  // With shared read models the CLI folds them itself only when no service process does (it takes
  // the projections lease when free): `bootstrap` works before any service has started.
  const leases = await openLeases(config.EVENT_LOG, config.READ_MODELS);
  // `import` goes the way capture does: through NATS when NATS_URL is set (the ingest role appends).
  const ingestTransport = command === 'import' ? await openIngestTransport(config).catch(async (err: unknown) => {
    await leases.close();
    throw err;
  }) : undefined;
  const runtime = await openRuntimeOn(config.EVENT_LOG, { dataDir, durability: config.DURABILITY, secretKey, readModels: config.READ_MODELS, folding: { leases }, ingestTransport }).catch(async (err: unknown) => {
    await ingestTransport?.close();
    await leases.close();
    throw err;
  });
  try {
    await startProjections(runtime, { catchUp: true });
    switch (command) {
      case 'bootstrap':
        await bootstrapCommand(runtime, dataDir, rest);
        return 0;
      case 'keys':
        await keysCommand(runtime, rest);
        return 0;
      case 'projects':
        await projectsCommand(runtime, rest);
        return 0;
      case 'import':
        await importCommand(runtime, dataDir, rest);
        return 0;
      case 'verify':
        return await verifyCommand(runtime, dataDir, rest);
      default:
        throw new UsageError(`unknown command ${command}\n${HELP}`);
    }
  } finally {
    await runtime.close();
    await leases.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

import { ChdbMissingError } from './adapters/clickhouse/chdb/module';
import { ConfigError, loadConfig, type Config } from './config';
import { guardProcessOutputs } from './app/log-output';
import { keepNewFilesPrivate, tightenDataDir } from './runtime/private-files';
import { DataDirError } from './store/data-dir';
import { startServer } from './server';

guardProcessOutputs();
keepNewFilesPrivate();

/** Start-up failures an operator fixes (configuration, data directory, port): one line each, exit 2. */
function startupFailure(err: unknown, config: Config | undefined): string | null {
  if (err instanceof ConfigError || err instanceof DataDirError || err instanceof ChdbMissingError) return err.message;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const where = config ? `${config.HOST}:${config.PORT}` : '';
  if (code === 'EADDRINUSE') return `cannot listen on ${where}: the port is already in use`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: the address is not available on this machine`;
  if (code === 'EACCES' && (err as { syscall?: string }).syscall === 'listen') return `cannot listen on ${where}: permission denied`;
  // At start-up an SQLite error comes from the files found in DATA_DIR (not a database, locked, corrupt).
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return `cannot open the data in DATA_DIR ${config?.DATA_DIR ?? ''}: ${(err as Error).message} (${code})`;
  return null;
}

function fail(err: unknown, config?: Config): never {
  const line = startupFailure(err, config);
  if (line === null) throw err;
  process.stderr.write(`${line}\n`);
  process.exit(2);
}

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  fail(err);
}
{
  const warning = tightenDataDir(config.DATA_DIR);
  if (warning) process.stderr.write(`warning: ${warning}\n`);
}

// Handlers go in before the server starts: "Server listening" is printed inside listen(), so a
// supervisor may signal before startServer has returned, and that signal must still close cleanly.
const started = startServer(config);
// `npm start` execs node, so npm forwards a signal here; Ctrl-C then arrives twice (terminal and
// npm), and the second must not cut the close short.
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    started
      .then(({ app }) => {
        app.log.info({ signal }, 'shutting down');
        return app.close();
      })
      .then(() => process.exit(0), () => process.exit(1));
  });
}
try {
  await started;
} catch (err) {
  fail(err, config);
}

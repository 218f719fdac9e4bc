import { ConfigError, loadConfig } from './config';
import { startServer } from './server';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  throw err;
}

// Handlers go in before the server starts: "Server listening" is printed inside listen(), so a
// supervisor may signal before startServer has returned, and that signal must still close cleanly.
const started = startServer(config);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    started
      .then(({ app }) => {
        app.log.info({ signal }, 'shutting down');
        return app.close();
      })
      .then(() => process.exit(0), () => process.exit(1));
  });
}
await started;

import { Command } from 'commander';
import { commands } from './commands';

const ENVIRONMENT = `
Environment:
  DATA_DIR     the data directory (default ./data; created 0700)
  EVENT_LOG    sqlite, a postgres:// URL or an esdb:// connection string
  READ_MODELS  sqlite or a postgres:// URL
  SECRET_KEY   required with a shared EVENT_LOG
  DURABILITY   normal or strict

Exit codes: 0 ok, 1 failure (or a difference found by verify), 2 usage error.`;

/** Commander folds its suggestion onto a second line; the CLI prints one line per error. */
const oneLine = (message: string) => message.replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)');

/**
 * The CLI's command tree. Every command lives in its own file under commands/ and registers itself
 * on the program (commands/index.ts lists them): settings set here (errors that throw instead of
 * exiting, one-line messages, help layout) are inherited by each `program.command(...)`.
 */
export function buildProgram(): Command {
  const program = new Command('npm run -s cli --')
    .description('Operate an Eventful analytics data directory: keys, projects, imports, replay and verification.')
    .exitOverride()
    .configureOutput({ outputError: (message, write) => write(oneLine(message)) })
    .showSuggestionAfterError(true)
    .helpCommand('help [command]', 'help for a command')
    .addHelpText('after', ENVIRONMENT);
  for (const register of commands) register(program);
  return program;
}

import { CommanderError } from 'commander';
import { ConfigError } from '../config';
import { DataDirError } from '../store/data-dir';
import { errorLine, ExitCode, UsageError } from './errors';
import { buildProgram } from './program';

/** Runs one command line; resolves to the process's exit code (see errors.ts). */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return ExitCode.usage;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (err) {
    // Commander has already printed its own message (or the help it was asked for).
    if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    process.stderr.write(`${errorLine(err)}\n`);
    return err instanceof UsageError || err instanceof ConfigError || err instanceof DataDirError ? ExitCode.usage : ExitCode.failure;
  }
}

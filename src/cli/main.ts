import { keepNewFilesPrivate } from '../runtime/private-files';
import { errorLine, ExitCode } from './errors';
import { run } from './run';

// Before anything is created: see runtime/private-files.ts.
keepNewFilesPrivate();
run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${errorLine(err)}\n`);
    process.exit(ExitCode.failure);
  },
);

import type { Command } from 'commander';
import { examples } from '../help';
import { bootstrap } from '../../access';
import { writeCredentialsFile } from '../../app';
import { withRuntime } from '../session';

export function registerBootstrap(program: Command) {
  program
    .command('bootstrap')
    .description('create the default organization, project and an all-scopes personal key (on an initialised directory: reuse them and issue a fresh key)')
    .option('--json', 'print the credentials as one JSON object')
    .addHelpText('after', examples('bootstrap --json'))
    .action((options: { json?: boolean }) =>
      withRuntime(async ({ runtime, dataDir }) => {
        const { credentials, created } = await bootstrap(runtime.access, runtime.queries.access, { type: 'cli' });
        if (created) writeCredentialsFile(dataDir, credentials);
        if (options.json) {
          process.stdout.write(JSON.stringify(credentials) + '\n');
          return;
        }
        process.stdout.write(
          `${created ? 'Initialised' : 'Already initialised'} ${dataDir}\n` +
            `  organization_id:  ${credentials.organization_id}\n` +
            `  project_id:       ${credentials.project_id}\n` +
            `  project_api_key:  ${credentials.project_api_key}\n` +
            `  personal_api_key: ${credentials.personal_api_key}  (shown once; stored hashed)\n`,
        );
      }),
    );
}

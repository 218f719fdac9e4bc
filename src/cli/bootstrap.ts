import { bootstrap } from '../access';
import { writeCredentialsFile, type Runtime } from '../app';
import { parse } from './args';

/** Creates (or, on an initialised directory, reuses) the default org and project and issues a personal key. */
export async function bootstrapCommand(runtime: Runtime, dataDir: string, argv: string[]) {
  const { values } = parse(argv, {});
  const { credentials, created } = await bootstrap(runtime.access, runtime.queries.access, { type: 'cli' });
  if (created) writeCredentialsFile(dataDir, credentials);
  if (values.json) {
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
}

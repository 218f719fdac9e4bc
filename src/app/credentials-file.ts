import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Credentials } from '../access';

/** The one place the first personal key exists in clear: readable by the owner only. */
export function writeCredentialsFile(dataDir: string, credentials: Credentials): string {
  const path = join(dataDir, 'credentials.json');
  writeFileSync(path, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  return path;
}

import { join } from 'node:path';
import type { StoreName } from '../store/read-model-projection';

/** File names of the embedded stores inside a data directory. */
export const storeFiles = (dir: string): Record<StoreName, string> & { log: string } => ({
  log: join(dir, 'events.sqlite'),
  readmodels: join(dir, 'readmodels.sqlite'),
});

import type { Destination } from '../destination';
import { exportToFiles } from '../file-export';
import { DirectoryStore } from './directory-store';
import { fileConfigSchema, type FileConfig } from './file-config';
import { toFileError } from './file-errors';

/** The zero-setup destination for trying the product out: files in a local directory. */
export const fileDestination: Destination<FileConfig> = {
  type: 'File',
  configSchema: fileConfigSchema,
  secretFields: [],
  async write(config, ctx, batches) {
    try {
      return await exportToFiles(config, ctx, batches, new DirectoryStore(config.path));
    } catch (err) {
      throw toFileError(err, config.path);
    }
  },
};

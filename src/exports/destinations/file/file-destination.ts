import { policyOf, type Destination } from '../destination';
import { exportToFiles } from '../file-export';
import { DirectoryStore } from './directory-store';
import { fileConfigSchema, type FileConfig } from './file-config';
import { toFileError } from './file-errors';

/**
 * The zero-setup destination for trying the product out: files in a local directory, always
 * under the export root (`path` relative to it, or absolute inside it).
 */
export const fileDestination: Destination<FileConfig> = {
  type: 'File',
  configSchema: fileConfigSchema,
  secretFields: [],
  targetFields: ['path'],
  async checkTarget(config, policy) {
    await policy.files.check(config.path);
  },
  async write(config, ctx, batches) {
    try {
      const { dir, realRoot } = await policyOf(ctx).files.prepare(config.path);
      return await exportToFiles(config, ctx, batches, new DirectoryStore(dir, realRoot, config.path));
    } catch (err) {
      throw toFileError(err, config.path);
    }
  },
};

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
    const files = policyOf(ctx).files;
    let realRoot: string | null = null;
    try {
      const prepared = await files.prepare(config.path);
      realRoot = prepared.realRoot;
      return await exportToFiles(config, ctx, batches, new DirectoryStore(prepared.dir, prepared.realRoot, config.path, files.modes));
    } catch (err) {
      const error = toFileError(err, config.path);
      // File system errors quote absolute paths: where the server keeps the root is not shown.
      for (const root of [realRoot, files.root]) if (root) error.message = error.message.split(root).join('<export root>');
      throw error;
    }
  },
};

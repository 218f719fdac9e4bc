import { z } from 'zod';
import { requiredString } from '../config-schema';
import { checkCompression, fileExportFields } from '../file-export';

/** `path` is a directory on the server; keys become paths below it. */
export const fileConfigSchema = z
  .object({ path: requiredString(), ...fileExportFields })
  .superRefine(checkCompression);

export type FileConfig = z.output<typeof fileConfigSchema>;

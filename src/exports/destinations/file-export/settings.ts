import { z } from 'zod';
import {
  COMPRESSIONS,
  FILE_FORMATS,
  SUPPORTED_COMPRESSIONS,
  isCompressionSupported,
  type Compression,
  type FileFormat,
} from '../../formats';
import { blankToUndefined, emptyToNull, nullToUndefined, numericStringToNumber } from '../config-schema';
import { PREFIX_PLACEHOLDERS, unknownPlaceholders } from './placeholders';

/** The config fields shared by every destination that writes files (S3, File). */
export interface FileExportSettings {
  prefix: string;
  file_format: FileFormat;
  compression: Compression | null;
  max_file_size_mb: number | null;
}

/** A key prefix must not climb out of the bucket or directory: no `..` segment, no NUL. */
const climbs = (value: string) => value.includes('\0') || value.split(/[\\/]+/).includes('..');

const prefix = z
  .preprocess(nullToUndefined, z.string().default(''))
  .refine((value) => !climbs(value), { error: "Must not contain '..' segments or NUL bytes." })
  .refine((value) => unknownPlaceholders(value).length === 0, {
    error: (issue) =>
      `Unknown placeholder(s) ${unknownPlaceholders(String(issue.input)).join(', ')}; ` +
      `allowed: ${PREFIX_PLACEHOLDERS.map((p) => `{${p}}`).join(' ')}.`,
  });

export const fileExportFields = {
  prefix,
  file_format: z.preprocess(
    blankToUndefined,
    z.enum(FILE_FORMATS, { error: `Must be one of: ${FILE_FORMATS.join(', ')}.` }).default('JSONLines'),
  ),
  compression: z
    .preprocess(emptyToNull, z.enum(COMPRESSIONS, { error: `Must be one of: ${COMPRESSIONS.join(', ')}, or null.` }).nullish())
    .transform((value) => value ?? null),
  max_file_size_mb: z
    .preprocess(
      (value) => numericStringToNumber(emptyToNull(value)),
      z.number({ error: 'Must be a number of megabytes.' }).positive('Must be greater than 0.').nullish(),
    )
    .transform((value) => value ?? null),
};

/** Cross-field rule: the compression must be one the chosen file format can be written with. */
export function checkCompression(settings: FileExportSettings, ctx: z.RefinementCtx): void {
  if (isCompressionSupported(settings.file_format, settings.compression)) return;
  ctx.addIssue({
    code: 'custom',
    path: ['compression'],
    message:
      `Compression '${settings.compression}' is not supported for file_format ${settings.file_format}; ` +
      `supported: ${SUPPORTED_COMPRESSIONS[settings.file_format].join(', ')}, or null for none.`,
  });
}

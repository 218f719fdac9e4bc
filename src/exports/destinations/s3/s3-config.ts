import { z } from 'zod';
import { blankToUndefined, emptyToNull, optionalString, requiredString } from '../config-schema';
import { checkCompression, fileExportFields } from '../file-export';

export const S3_ENCRYPTIONS = ['AES256', 'aws:kms'] as const;

export const s3ConfigSchema = z
  .object({
    bucket_name: requiredString(),
    // The region becomes part of the AWS host name: letters, digits and dashes only.
    region: z.preprocess(blankToUndefined, z.string().regex(/^[a-z0-9-]{1,40}$/i, 'Must be a region name such as us-east-1.').default('us-east-1')),
    aws_access_key_id: optionalString(),
    aws_secret_access_key: optionalString(),
    /** Any S3-compatible service (MinIO, R2, s3rver, ...); path-style addressing is used then. */
    endpoint_url: z
      .preprocess(emptyToNull, z.url({ protocol: /^https?$/, error: 'Must be an http(s) URL.' }).nullish())
      .transform((value) => value ?? null),
    encryption: z
      .preprocess(emptyToNull, z.enum(S3_ENCRYPTIONS, { error: `Must be one of: ${S3_ENCRYPTIONS.join(', ')}, or null.` }).nullish())
      .transform((value) => value ?? null),
    kms_key_id: optionalString(),
    ...fileExportFields,
  })
  .superRefine(checkCompression)
  .superRefine((config, ctx) => {
    // Half a key pair is always a mistake; neither means the SDK's default credential chain.
    if (Boolean(config.aws_access_key_id) !== Boolean(config.aws_secret_access_key)) {
      ctx.addIssue({
        code: 'custom',
        path: [config.aws_access_key_id ? 'aws_secret_access_key' : 'aws_access_key_id'],
        message: 'aws_access_key_id and aws_secret_access_key must be given together.',
      });
    }
    // Without keys the SDK signs with the server's own credentials (environment, instance role):
    // their key id and session token must never go to an endpoint someone else chose.
    if (config.endpoint_url !== null && !config.aws_access_key_id && !config.aws_secret_access_key) {
      ctx.addIssue({
        code: 'custom',
        path: ['aws_access_key_id'],
        message: "Required with endpoint_url: the server's own AWS credentials are only used with AWS's endpoints.",
      });
    }
  });

export type S3Config = z.output<typeof s3ConfigSchema>;

/** The host `endpoint_url` names, or null for AWS's own endpoints. */
export const endpointHost = (config: S3Config): string | null => (config.endpoint_url ? new URL(config.endpoint_url).hostname : null);

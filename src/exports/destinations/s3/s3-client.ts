import { S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from './s3-config';

/** Bounded so a dead endpoint fails the attempt quickly; the run itself is retried by the worker. */
const CONNECTION_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 120_000;

export function createS3Client(config: S3Config): S3Client {
  const custom = config.endpoint_url !== null;
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint_url ?? undefined,
    // Most S3-compatible servers (MinIO, s3rver, ...) have no virtual-host DNS for buckets.
    forcePathStyle: custom,
    credentials:
      config.aws_access_key_id && config.aws_secret_access_key
        ? { accessKeyId: config.aws_access_key_id, secretAccessKey: config.aws_secret_access_key }
        : undefined,
    // Newer SDKs add CRC checksums by default, which many S3-compatible servers reject.
    requestChecksumCalculation: custom ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED',
    responseChecksumValidation: custom ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED',
    maxAttempts: 3,
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
  });
}

import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { S3Client } from '@aws-sdk/client-s3';
import type { NetworkPolicy } from '../../policy';
import type { S3Config } from './s3-config';

/** Bounded so a dead endpoint fails the attempt quickly; the run itself is retried by the worker. */
const CONNECTION_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 120_000;

/**
 * Every socket of the client resolves its host through the network policy's lookup, so the
 * address it connects to is the one that was checked (AWS's endpoints included).
 */
export function createS3Client(config: S3Config, network: NetworkPolicy): S3Client {
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
    requestHandler: {
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      httpAgent: new HttpAgent({ keepAlive: true, lookup: network.lookup as never }),
      httpsAgent: new HttpsAgent({ keepAlive: true, lookup: network.lookup as never }),
    },
  });
}

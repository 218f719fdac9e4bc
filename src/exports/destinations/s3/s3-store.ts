import { once } from 'node:events';
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { nonRetryableError } from '../destination';
import type { ObjectStore, ObjectUpload } from '../file-export';
import { S3ObjectWritable, type S3ObjectTarget } from './s3-object-writable';
import type { S3Config } from './s3-config';

/** DeleteObjects takes at most this many keys per call. */
const DELETE_BATCH = 1000;

export class S3Store implements ObjectStore {
  constructor(
    private readonly client: S3Client,
    private readonly config: S3Config,
  ) {}

  describe(key: string): string {
    return `s3://${this.config.bucket_name}/${key}`;
  }

  async open(key: string): Promise<ObjectUpload> {
    const stream = new S3ObjectWritable(this.client, this.target(key));
    return {
      stream,
      // The object appears when the upload completes, i.e. when the stream finishes.
      commit: async () => undefined,
      discard: async () => {
        if (stream.destroyed) return;
        stream.destroy(new Error('upload discarded'));
        await once(stream, 'close').catch(() => undefined);
      },
    };
  }

  async put(key: string, body: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ ...this.target(key), Body: body, ContentType: 'application/json' }));
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.config.bucket_name, Prefix: prefix, ContinuationToken }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys;
  }

  async remove(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const Objects = keys.slice(i, i + DELETE_BATCH).map((Key) => ({ Key }));
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.config.bucket_name, Delete: { Objects, Quiet: true } }));
    }
  }

  private target(key: string): S3ObjectTarget {
    // Validation refuses such prefixes; a key that still climbs is never sent.
    if (key.split('/').includes('..') || key.includes('\0')) throw nonRetryableError(`S3 key '${key}' contains a '..' segment`);
    const { bucket_name, encryption, kms_key_id } = this.config;
    return {
      Bucket: bucket_name,
      Key: key,
      ...(encryption ? { ServerSideEncryption: encryption } : {}),
      ...(encryption === 'aws:kms' && kms_key_id ? { SSEKMSKeyId: kms_key_id } : {}),
    };
  }
}

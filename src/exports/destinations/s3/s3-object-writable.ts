import { Writable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
  type ServerSideEncryption,
} from '@aws-sdk/client-s3';

export interface S3ObjectTarget {
  Bucket: string;
  Key: string;
  ServerSideEncryption?: ServerSideEncryption;
  SSEKMSKeyId?: string;
}

/** S3's minimum for every part but the last. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;

/**
 * A stream into one S3 object. Small objects go up in a single PUT; once more than one part's
 * worth arrives it switches to a multipart upload, so memory stays at one part whatever the
 * file size. S3 only shows the object when the upload completes, and a failed stream aborts
 * the multipart upload so no parts linger.
 */
export class S3ObjectWritable extends Writable {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private uploadId: string | null = null;
  private readonly parts: CompletedPart[] = [];

  constructor(
    private readonly client: S3Client,
    private readonly target: S3ObjectTarget,
    private readonly partSize = 8 * 1024 * 1024,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < this.partSize) return callback();
    this.uploadBufferedPart().then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.complete().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const uploadId = this.uploadId;
    this.uploadId = null;
    // Still set means the upload never completed, so its parts must not linger (and cost money).
    if (!uploadId) return callback(error);
    this.client
      .send(new AbortMultipartUploadCommand({ Bucket: this.target.Bucket, Key: this.target.Key, UploadId: uploadId }))
      .catch(() => undefined)
      .finally(() => callback(error));
  }

  private takeBuffered(): Buffer {
    const body = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    return body;
  }

  private async uploadBufferedPart(): Promise<void> {
    if (!this.uploadId) {
      const created = await this.client.send(new CreateMultipartUploadCommand({ ...this.target }));
      this.uploadId = created.UploadId ?? null;
      if (!this.uploadId) throw new Error('S3 did not return an UploadId for the multipart upload');
    }
    const PartNumber = this.parts.length + 1;
    const { ETag } = await this.client.send(
      new UploadPartCommand({ Bucket: this.target.Bucket, Key: this.target.Key, UploadId: this.uploadId, PartNumber, Body: this.takeBuffered() }),
    );
    this.parts.push({ ETag, PartNumber });
  }

  private async complete(): Promise<void> {
    if (!this.uploadId) {
      await this.client.send(new PutObjectCommand({ ...this.target, Body: this.takeBuffered() }));
      return;
    }
    if (this.buffered > 0) await this.uploadBufferedPart();
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.target.Bucket,
        Key: this.target.Key,
        UploadId: this.uploadId,
        MultipartUpload: { Parts: this.parts },
      }),
    );
    this.uploadId = null;
  }
}

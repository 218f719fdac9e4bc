import { Transform, type TransformCallback } from 'node:stream';

/** Pass-through that counts what reaches the sink, i.e. bytes after compression. */
export class ByteCounter extends Transform {
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

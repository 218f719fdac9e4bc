import { Readable } from 'node:stream';

/** Lines are handed to the socket in pieces of about this size (UTF-16 units), never as one string. */
const PIECE = 256 * 1024;

/**
 * JSONL of `lines` as a byte stream, serialised piece by piece as the socket asks for more: the
 * whole answer is never one string (a large one can pass V8's string limit, and building it holds
 * the loop). Each piece after the first waits a turn of the event loop: a local socket takes
 * megabytes without back-pressure, and without the turn the whole answer would be one long task.
 */
export function jsonlStream(lines: readonly unknown[]): Readable {
  let next = 0;
  const piece = (): Buffer | null => {
    const parts: string[] = [];
    let size = 0;
    while (next < lines.length && size < PIECE) {
      const text = JSON.stringify(lines[next++]) + '\n';
      parts.push(text);
      size += text.length;
    }
    return parts.length > 0 ? Buffer.from(parts.join('')) : null;
  };
  return new Readable({
    read() {
      if (next === 0) this.push(piece());
      else setImmediate(() => this.push(piece()));
    },
  });
}

import { Readable } from 'node:stream';

/** Lines are handed to the socket in pieces of about this size (UTF-16 units), never as one string. */
const PIECE = 256 * 1024;

/**
 * JSONL of `lines` as a byte stream, serialised as the socket asks for more: the whole answer is
 * never one string (a large one can pass V8's string limit, and building it holds the loop), and
 * the socket's back-pressure gives the loop a turn between pieces.
 */
export function jsonlStream(lines: readonly unknown[]): Readable {
  let next = 0;
  return new Readable({
    read() {
      const parts: string[] = [];
      let size = 0;
      while (next < lines.length && size < PIECE) {
        const text = JSON.stringify(lines[next++]) + '\n';
        parts.push(text);
        size += text.length;
      }
      this.push(parts.length > 0 ? Buffer.from(parts.join('')) : null);
    },
  });
}

import type { Readable } from 'node:stream';

export interface Line {
  text: string;
  /** 1-based line number in the whole input. */
  number: number;
  /** Byte offset just past this line's newline: where a resumed read starts. */
  endOffset: number;
}

/** Splits a byte stream into lines, keeping exact byte offsets (readline does not expose them). */
export async function* linesWithOffsets(stream: Readable, startOffset = 0, startLine = 0): AsyncGenerator<Line> {
  let pending: Buffer = Buffer.alloc(0);
  let offset = startOffset;
  let number = startLine;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const buf: Buffer = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let start = 0;
    for (let i = buf.indexOf(10, start); i !== -1; i = buf.indexOf(10, start)) {
      const end = i > start && buf[i - 1] === 13 ? i - 1 : i;
      offset += i + 1 - start;
      yield { text: buf.toString('utf8', start, end), number: ++number, endOffset: offset };
      start = i + 1;
    }
    pending = buf.subarray(start);
  }
  if (pending.length) {
    offset += pending.length;
    yield { text: pending.toString('utf8'), number: ++number, endOffset: offset };
  }
}

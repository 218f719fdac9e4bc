import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import type { ParquetParsers } from 'hyparquet';

/** Reads with hyparquet, an implementation independent of the writer (parquet-wasm / arrow-rs). */
export async function readParquet(bytes: Uint8Array, parsers?: Partial<ParquetParsers>): Promise<Record<string, unknown>[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return parquetReadObjects({ file, compressors, parsers });
}

export function parquetInfo(bytes: Uint8Array): { rowGroups: number; codecs: string[]; columns: string[] } {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const meta = parquetMetadata(file);
  return {
    rowGroups: meta.row_groups.length,
    codecs: [...new Set(meta.row_groups.flatMap((g) => g.columns.map((c) => String(c.meta_data?.codec))))],
    columns: meta.schema.slice(1).map((s) => s.name),
  };
}

import { createRecordWriter, type RecordWriter, type SizeRatio } from '../../formats';
import type { RecordBatches, RunContext, WriteResult } from '../destination';
import { FileNaming } from './keys';
import type { ObjectStore, ObjectUpload } from './object-store';
import type { FileExportSettings } from './settings';

/** With a size limit, batches are fed in slices this big so a file can be closed mid-batch. */
const SPLIT_CHECK_ROWS = 100;
const MIB = 1024 * 1024;

interface OpenFile {
  key: string;
  upload: ObjectUpload;
  writer: RecordWriter;
}

/**
 * Writes one run's records as files into `store`, split by `max_file_size_mb` when set, with a
 * manifest listing the split files. Keys derive from the interval only, so a re-run overwrites
 * the same objects, and numbered files a previous attempt left beyond this run's count are
 * deleted: a retried or replayed run leaves exactly one copy of each record.
 */
export async function exportToFiles(
  settings: FileExportSettings,
  ctx: RunContext,
  batches: RecordBatches,
  store: ObjectStore,
): Promise<WriteResult> {
  const naming = new FileNaming(settings, ctx.dataIntervalStart, ctx.dataIntervalEnd);
  const limit = settings.max_file_size_mb === null ? Infinity : settings.max_file_size_mb * MIB;
  const sizeRatio: SizeRatio = { value: null };
  const files: string[] = [];
  let records = 0;
  let bytes = 0;
  let current: OpenFile | null = null;

  const open = async (): Promise<OpenFile> => {
    const key = naming.dataKey(files.length);
    const upload = await store.open(key);
    try {
      const writer = createRecordWriter(upload.stream, { ...settingsToFormat(settings), sizeRatio });
      return { key, upload, writer };
    } catch (err) {
      await upload.discard();
      throw err;
    }
  };

  const finish = async (file: OpenFile): Promise<void> => {
    await file.writer.close();
    await file.upload.commit();
    files.push(file.key);
    records += file.writer.recordsWritten;
    bytes += file.writer.bytesWritten;
    ctx.log('INFO', `Wrote ${file.writer.recordsWritten} records (${file.writer.bytesWritten} bytes) to ${store.describe(file.key)}`);
  };

  /** After each write: a file that reached the size limit is closed; the next write opens another. */
  const closeIfFull = async (): Promise<void> => {
    if (current && current.writer.bytesWritten >= limit) {
      const full: OpenFile = current;
      current = null;
      await finish(full);
    }
  };

  try {
    const encoded = settings.file_format === 'JSONLines' ? (batches.encoded?.('JSONLines') ?? null) : null;
    // Encoded chunks are a few hundred rows each, so a size-limited file overshoots by at most one.
    if (encoded) {
      for await (const chunk of encoded) {
        current ??= await open();
        if (!current.writer.writeEncoded) throw new Error(`${settings.file_format} writer takes no encoded rows`);
        await current.writer.writeEncoded(chunk);
        await closeIfFull();
      }
    }
    for await (const batch of encoded ? [] : batches) {
      for (let i = 0; i < batch.length; ) {
        const end = limit === Infinity ? batch.length : Math.min(batch.length, i + SPLIT_CHECK_ROWS);
        current ??= await open();
        await current.writer.write(i === 0 && end === batch.length ? batch : batch.slice(i, end));
        i = end;
        await closeIfFull();
      }
    }
    if (current) {
      const last: OpenFile = current;
      current = null;
      await finish(last);
    }
  } catch (err) {
    if (current) await abandon(current, err);
    throw err;
  }

  if (naming.numbered) {
    await removeStaleFiles(store, naming, files.length, ctx);
    if (files.length > 0) await store.put(naming.manifestKey, JSON.stringify({ files }));
  }
  if (files.length === 0) ctx.log('INFO', 'No records in this interval; no file written');
  return { recordsCompleted: records, bytesExported: bytes };
}

const settingsToFormat = (s: FileExportSettings) => ({ format: s.file_format, compression: s.compression });

async function abandon(file: OpenFile, err: unknown): Promise<void> {
  file.writer.abort(err instanceof Error ? err : new Error(String(err)));
  await file.upload.discard().catch(() => undefined);
}

async function removeStaleFiles(store: ObjectStore, naming: FileNaming, count: number, ctx: RunContext): Promise<void> {
  const stale = (await store.list(naming.listPrefix)).filter((key) => (naming.indexOf(key) ?? -1) >= count);
  if (stale.length === 0) return;
  await store.remove(stale);
  ctx.log('INFO', `Removed ${stale.length} file(s) left by an earlier attempt of this run`);
}

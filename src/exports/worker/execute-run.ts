import type { BatchExportRow, RunRow } from '../../../projections/exports';
import { getDestination, nonRetryableError, type LogLevel } from '../destinations';
import type { ExportSource } from './export-source';
import type { SecretBox } from '../secrets';
import type { DestinationPolicy } from '../policy';

export type AbandonReason = 'cancelled' | 'superseded' | 'stopping';

const ABANDON_MESSAGES: Record<AbandonReason, string> = {
  cancelled: 'Run cancelled; export stopped',
  superseded: 'Another attempt took the run over; export stopped',
  stopping: 'The worker is stopping',
};

/** Thrown from the record source when the run stopped being this attempt's to finish. */
export class RunAbandonedError extends Error {
  constructor(readonly reason: AbandonReason) {
    super(ABANDON_MESSAGES[reason]);
    this.name = 'RunAbandonedError';
  }
}

export interface ExecuteOptions {
  exp: BatchExportRow;
  run: RunRow;
  /** Where the run's rows come from (the analytics port). */
  source: ExportSource;
  /** Opens the sealed destination secrets for the write. */
  secrets: SecretBox;
  batchSize: number;
  /** Where destinations may write (export root, network policy). */
  policy: DestinationPolicy;
  log: (level: LogLevel, message: string) => void;
  /** Checked between batches; a reason stops the export. */
  abandoned: () => AbandonReason | null;
}

export interface ExecuteResult {
  recordsCompleted: number;
  recordsTotalCount: number;
  bytesExported: number | null;
}

/**
 * Hands the run's rows, batch by batch, to the destination, which does the writing and its own
 * idempotence. The source reads one snapshot, so the total matches what is exported.
 */
export async function executeRun(options: ExecuteOptions): Promise<ExecuteResult> {
  const { exp, run } = options;
  const destination = getDestination(exp.destination_type);
  if (!destination) throw nonRetryableError(`Unsupported destination type '${exp.destination_type}'`);
  const rows = options.source(exp, run);
  try {
    options.log('DEBUG', `${rows.total} records in the interval`);
    const check = () => {
      const reason = options.abandoned();
      if (reason) throw new RunAbandonedError(reason);
    };
    const result = await destination.write(
      options.secrets.openConfig(exp.destination_type, exp.destination_config),
      {
        batchExportId: exp.id,
        runId: run.id,
        teamId: exp.project_id,
        dataIntervalStart: new Date(run.data_interval_start),
        dataIntervalEnd: new Date(run.data_interval_end),
        isBackfill: run.backfill_id !== null,
        log: options.log,
        policy: options.policy,
      },
      Object.assign(rows.batches(options.batchSize, check), {
        encoded: (format: 'JSONLines') => rows.encoded?.(format, options.batchSize, check) ?? null,
      }),
    );
    return { recordsCompleted: result.recordsCompleted, recordsTotalCount: rows.total, bytesExported: result.bytesExported ?? null };
  } finally {
    rows.close();
  }
}

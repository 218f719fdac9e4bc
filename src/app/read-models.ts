import type { StoreName } from '../store/read-model-projection';
import { ConfigError } from '../config';
import { redactedUrl } from '../config/event-log';
import type { ReadModelsChoice } from '../config/read-models';
import type { ReadModelStore } from '../store/read-models';
import type { ExportSource } from '../exports/worker/export-source';

/** What another thread needs to open its own handle on the read models (plain data: it crosses postMessage). */
export type ReadModelsSpec = { kind: 'sqlite'; files: Record<StoreName, string> } | { kind: 'postgres'; url: string; schema: string };

/** Read models every process of a deployment shares: both store names on one PostgreSQL schema. */
export interface SharedReadModels {
  stores: Record<StoreName, ReadModelStore>;
  /** How another thread opens its own handle on them. */
  spec: Extract<ReadModelsSpec, { kind: 'postgres' }>;
  /** The export worker's reads of the events table, on the same store. */
  exportSource: ExportSource;
  close(): Promise<void>;
}

/** Opens the PostgreSQL read models READ_MODELS names (connects, creates the schema when missing). */
export async function openSharedReadModels(choice: Extract<ReadModelsChoice, { kind: 'postgres' }>): Promise<SharedReadModels> {
  // Loaded here, not at start-up: the embedded default never needs the pg client.
  const { PostgresReadModelStore } = await import('../adapters/postgres/read-models');
  const { isUnreachable } = await import('../adapters/postgres/event-log');
  const { postgresExportSource } = await import('../adapters/postgres/export-source');
  try {
    const store = await PostgresReadModelStore.open({ connection: choice.url, schema: choice.schema });
    return { stores: { readmodels: store }, spec: { kind: 'postgres', url: choice.url, schema: choice.schema }, exportSource: postgresExportSource(store), close: () => store.close() };
  } catch (err) {
    // At start-up, a server out of reach is the operator's to fix: one line (exit 2), no stack.
    if (isUnreachable(err)) throw new ConfigError(`READ_MODELS ${redactedUrl(choice.url)}: cannot reach PostgreSQL (${(err as Error).message})`);
    throw err;
  }
}

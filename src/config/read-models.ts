import { parsePostgresUrl } from './postgres-url';

/** Where the read models live: SQLite files in DATA_DIR (each process folds its own), or one PostgreSQL schema every process shares. */
export type ReadModelsChoice = { kind: 'sqlite' } | { kind: 'postgres'; url: string; schema: string };

/** The PostgreSQL schema when the URL names none. */
export const DEFAULT_READ_MODELS_SCHEMA = 'read_models';

/** Reads READ_MODELS: `sqlite` or `postgres://user@host:port/database?schema=name`; a message for an invalid value. */
export function parseReadModels(value: string): ReadModelsChoice | { error: string } {
  if (value === 'sqlite') return { kind: 'sqlite' };
  return parsePostgresUrl(value, DEFAULT_READ_MODELS_SCHEMA) ?? { error: 'expected `sqlite` or a postgres:// URL' };
}

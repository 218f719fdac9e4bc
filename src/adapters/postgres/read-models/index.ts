export { PostgresReadModelStore, type PostgresReadModelOptions } from './store';
export { postgresDialect } from './dialect';
export { numberPlaceholders } from './placeholders';

export { SqliteReadModelStore } from './store';
export { sqliteSession } from './session';
export { sqliteDialect } from './dialect';
export { sqliteTableDdl } from './ddl';
export { cachedStore } from './cached-store';

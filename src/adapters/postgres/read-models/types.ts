import pg from 'pg';

const BOOL = 16;
const INT8 = 20;
const NUMERIC = 1700;

/**
 * Values as the SQLite adapter returns them, so folds, queries and digests see one shape: 64-bit
 * integers and numerics as numbers (read-model integers stay below 2^53), booleans as 1/0.
 */
export const readModelTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    if (oid === BOOL) return (value: string) => (value === 't' ? 1 : 0);
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

import { Field, Int64, Schema, TimestampMicrosecond, Utf8 } from 'apache-arrow';

/**
 * The fixed Parquet schema of file exports, close to PostHog's own Parquet exports:
 * - JSON-object fields (properties, person_properties, set, set_once) are UTF-8 JSON text;
 * - timestamp and created_at are TIMESTAMP(MICROS, UTC) columns (isAdjustedToUTC = true);
 * - team_id is INT64, everything else UTF-8.
 * Every column is nullable, so one schema fits every row group and every file.
 */
export const TEAM_ID_TYPE = new Int64();
export const TIMESTAMP_TYPE = new TimestampMicrosecond('UTC');

export const PARQUET_SCHEMA = new Schema([
  new Field('uuid', new Utf8(), true),
  new Field('event', new Utf8(), true),
  new Field('properties', new Utf8(), true),
  new Field('distinct_id', new Utf8(), true),
  new Field('team_id', TEAM_ID_TYPE, true),
  new Field('timestamp', TIMESTAMP_TYPE, true),
  new Field('created_at', TIMESTAMP_TYPE, true),
  new Field('person_id', new Utf8(), true),
  new Field('person_properties', new Utf8(), true),
  new Field('set', new Utf8(), true),
  new Field('set_once', new Utf8(), true),
  new Field('elements_chain', new Utf8(), true),
]);

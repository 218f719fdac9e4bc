import { EXPORTED_FIELDS as EXPORTED_ROW_FIELDS } from '../formats/exported-row';
import type { EventField, FunctionName, JsonSource } from './ast';

/** The fields a batch export may select, in PostHog's export order (compat/posthog.md §5). */
export const EXPORTED_FIELDS: readonly EventField[] = EXPORTED_ROW_FIELDS;

export function isEventField(name: string): name is EventField {
  return (EXPORTED_FIELDS as readonly string[]).includes(name);
}

export const JSON_SOURCES: readonly JsonSource[] = ['properties', 'person_properties'];

/**
 * What the compilers need to know about a value to keep both dialects agreeing:
 * `json` values are JSON-derived text (a ClickHouse Nullable(String)), compared with numbers only
 * after a null-on-failure numeric conversion.
 */
export type StaticType = 'string' | 'number' | 'json' | 'datetime' | 'bool' | 'null';

export const FIELD_TYPES: Readonly<Record<EventField, StaticType>> = {
  uuid: 'string',
  event: 'string',
  properties: 'json',
  distinct_id: 'string',
  team_id: 'number',
  timestamp: 'datetime',
  created_at: 'datetime',
  person_id: 'string',
  person_properties: 'json',
  set: 'json',
  set_once: 'json',
  elements_chain: 'string',
};

export interface FunctionSpec {
  readonly name: FunctionName;
  readonly minArgs: number;
  /** null: no upper bound. */
  readonly maxArgs: number | null;
}

/**
 * The whitelist. Short on purpose: each entry must mean the same thing on SQLite and on
 * ClickHouse 18.16, which lacks toJSONString, accurateCastOrNull and ILIKE.
 */
export const FUNCTIONS: readonly FunctionSpec[] = [
  { name: 'toString', minArgs: 1, maxArgs: 1 },
  { name: 'toInt', minArgs: 1, maxArgs: 1 },
  { name: 'toFloat', minArgs: 1, maxArgs: 1 },
  { name: 'lower', minArgs: 1, maxArgs: 1 },
  { name: 'upper', minArgs: 1, maxArgs: 1 },
  { name: 'length', minArgs: 1, maxArgs: 1 },
  { name: 'coalesce', minArgs: 1, maxArgs: null },
];

/** Function names match case-insensitively, as most ClickHouse built-ins do. */
export function findFunction(name: string): FunctionSpec | undefined {
  const lowered = name.toLowerCase();
  return FUNCTIONS.find((spec) => spec.name.toLowerCase() === lowered);
}

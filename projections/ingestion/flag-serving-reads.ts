import type { SqlStore } from '../projection';
import type { GroupApi, GroupTypeMapping } from './api-types';
import type { Properties } from './properties';
import { GROUP, GROUP_TYPE_MAPPINGS, HASH_KEY_OVERRIDE_FOR, PERSON_PROPERTIES_BY_DISTINCT_ID } from './read-statements';

/**
 * flag-serving hot path: moves to the port with the async caches. The reads flag evaluation makes
 * while answering /decide and /flags (through synchronous caches), over the embedded SQLite store
 * only. They run the same statements as the port's `ingestionQueries`.
 */
export function flagServingReads(db: SqlStore) {
  return {
    personPropertiesByDistinctId(projectId: number, distinctId: string): Properties | null {
      const row = db.prepare(PERSON_PROPERTIES_BY_DISTINCT_ID).get(projectId, distinctId) as { properties: string } | undefined;
      return row === undefined ? null : (JSON.parse(row.properties) as Properties);
    },

    group(projectId: number, groupTypeIndex: number, groupKey: string): GroupApi | undefined {
      const row = db.prepare(GROUP).get(projectId, groupTypeIndex, groupKey) as
        | { group_type_index: number; group_key: string; group_properties: string; created_at: string }
        | undefined;
      return row && { ...row, group_properties: JSON.parse(row.group_properties) as Properties };
    },

    groupTypeMappings(projectId: number): GroupTypeMapping[] {
      return db.prepare(GROUP_TYPE_MAPPINGS).all(projectId) as GroupTypeMapping[];
    },

    hashKeyOverrideFor(projectId: number, distinctId: string): string | null {
      const row = db.prepare(HASH_KEY_OVERRIDE_FOR).get(projectId, distinctId) as { hash_key: string } | undefined;
      return row?.hash_key ?? null;
    },
  };
}

export type FlagServingReads = ReturnType<typeof flagServingReads>;

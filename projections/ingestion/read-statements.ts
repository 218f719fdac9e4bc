/* The statements behind the reads flag serving makes (through the port's queries, queries.ts). */

export const PERSON_PROPERTIES_BY_DISTINCT_ID = `SELECT p.properties FROM person_distinct_ids d JOIN persons p ON p.uuid = d.person_id
  WHERE d.project_id = ? AND d.distinct_id = ?`;

export const HASH_KEY_OVERRIDE_FOR = `SELECT h.hash_key FROM person_distinct_ids d
  JOIN person_hash_key_overrides h ON h.project_id = d.project_id AND h.person_id = d.person_id
  WHERE d.project_id = ? AND d.distinct_id = ?`;

export const GROUP = `SELECT group_type_index, group_key, group_properties, created_at FROM groups
  WHERE project_id = ? AND group_type_index = ? AND group_key = ?`;

export const GROUP_TYPE_MAPPINGS =
  'SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ? ORDER BY group_type_index';

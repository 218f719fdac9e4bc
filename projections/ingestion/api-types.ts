import type { Properties } from './properties';

/* The shapes the ingestion queries return: PostHog's API shapes where PostHog has one. */

/** PostHog's persons API shape; `id` is the uuid (there is no separate integer id here). */
export interface PersonApi {
  id: string;
  uuid: string;
  distinct_ids: string[];
  properties: Properties;
  created_at: string;
  is_identified: boolean;
}

/** The flags hot path's view of a person: no distinct id list, one indexed read. */
export interface PersonRecord {
  id: string;
  uuid: string;
  properties: Properties;
  created_at: string;
  is_identified: boolean;
  version: number;
}

/** PostHog's group shape. */
export interface GroupApi {
  group_type_index: number;
  group_key: string;
  group_properties: Properties;
  created_at: string;
}

export interface GroupTypeMapping {
  group_type: string;
  group_type_index: number;
}

export interface EventApi {
  id: string;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string | null;
  properties: Properties;
  timestamp: string;
  received_at: string;
  elements_chain: string;
  group_0: string | null;
  group_1: string | null;
  group_2: string | null;
  group_3: string | null;
  group_4: string | null;
  historical_migration: boolean;
}

export interface IngestionWarningApi {
  type: string;
  source: string;
  details: Record<string, unknown>;
  timestamp: string;
}

export interface Page<T> {
  count: number;
  results: T[];
}

export interface PageOptions {
  limit: number;
  offset?: number;
}

export interface EventFilters extends PageOptions {
  event?: string;
  distinctId?: string;
  /**
   * Events of every distinct id the person holds now, including those recorded before a merge
   * under the merged-away person (the stored person_id is the one at ingestion).
   */
  personId?: string;
  /** ISO; events strictly after this timestamp. */
  after?: string;
  /** ISO; events strictly before this timestamp. */
  before?: string;
  /**
   * With `before`: the keyset cursor of a page's last row, so events strictly before
   * (before, beforeUuid) in the list's (timestamp desc, uuid desc) order, ties on time included.
   */
  beforeUuid?: string;
}

import type { EventListFilters, ListedEvent } from '../../src/store/analytics';
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

/** The events API's row: the analytics port's (src/store/analytics.ts). */
export type EventApi = ListedEvent;

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

/** The events list's filters: the analytics port's (src/store/analytics.ts). */
export type EventFilters = EventListFilters;

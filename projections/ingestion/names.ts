/** The ingestion projection's name (its checkpoint and quarantine rows are keyed on it). */
export const INGESTION = 'ingestion';

/** The warning a project sees for an event of its own that a projection skipped (see QUARANTINE_TABLE). */
export const QUARANTINE_WARNING = 'event_quarantined';

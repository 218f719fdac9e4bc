/**
 * Why ingestion refused an event, or dropped part of one (e.g. an unusable group), although the
 * request answers 200. Logged as an IngestionWarningRaised record (source `capture`).
 */
export interface IngestionWarning {
  type: string;
  details: Record<string, unknown>;
}

/**
 * Rows per statement. No sorting key starts with the run's time (received_at is not in it at all),
 * so each statement reads every row of the project before the cursor's condition drops most; pages
 * of 20,000 rows handed on in batches keep that to one read per 20,000 rows, not per batch.
 */
export const PAGE_ROWS = 20_000;

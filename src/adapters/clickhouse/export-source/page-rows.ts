/**
 * Rows per statement. Each statement reads its page's range (page-ranges.ts) and 18.16 sorts what
 * it reads rather than stopping at the page's end, so pages of 20,000 rows handed on in batches
 * keep that to one read per 20,000 rows, not per batch.
 */
export const PAGE_ROWS = 20_000;

export type Compression = 'gzip' | 'lz64' | 'base64' | 'none';

const NAMES: Record<string, Compression> = {
  gzip: 'gzip',
  'gzip-js': 'gzip',
  'x-gzip': 'gzip',
  lz64: 'lz64',
  'lz-string': 'lz64',
  base64: 'base64',
  b64: 'base64',
};

/**
 * The first hint present wins, in PostHog's order: query string, form field, Content-Encoding.
 * Unknown names mean "not compressed" rather than an error, so a proxy's odd header does not
 * lose events; the body is still sniffed for gzip.
 */
export function resolveCompression(...hints: Array<string | undefined>): Compression {
  const hint = hints.find((h) => h !== undefined && h.trim() !== '');
  if (hint === undefined) return 'none';
  return NAMES[hint.trim().toLowerCase()] ?? 'none';
}

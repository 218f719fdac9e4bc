import type { PropertyReader } from './operators';

/**
 * The person properties whose `$initial_` twin the flags service fills in when it is missing.
 *
 * Ingestion writes `$initial_<key>` with `$set_once` from the same event that sets `<key>`, but the
 * write can lag, so PostHog's flags service (`populate_missing_initial_properties`) copies the
 * current value into the person's properties before matching: a condition on `$initial_browser`
 * then matches a person who so far only has `$browser`. Only this fixed list is filled (PostHog's
 * taxonomy: properties adapted from events, then campaign properties), not every `$initial_`
 * name: `utm_name`, `$os_name`, `$host` or the GeoIP keys get no twin here even where ingestion
 * writes one. Never the other way round: `$browser` is not read from `$initial_browser`.
 */
const FILLED_FROM_COUNTERPART: readonly string[] = [
  '$app_build',
  '$app_name',
  '$app_namespace',
  '$app_version',
  '$browser',
  '$browser_version',
  '$device_type',
  '$current_url',
  '$pathname',
  '$os',
  '$os_version',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$raw_user_agent',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  'rdt_cid',
  'epik',
  'qclid',
  'sccid',
  'irclid',
  '_kx',
];

/** `$initial_<key without leading $>` -> `<key>`, e.g. `$initial_browser` -> `$browser`, `$initial__kx` -> `_kx`. */
const COUNTERPART_OF: ReadonlyMap<string, string> = new Map(
  FILLED_FROM_COUNTERPART.map((key) => [`$initial_${key.startsWith('$') ? key.slice(1) : key}`, key]),
);

/** Every (initial name, counterpart) pair the rule covers. */
export function initialTwins(): [initial: string, counterpart: string][] {
  return [...COUNTERPART_OF];
}

/**
 * Reads person properties as the flags service sees them: a listed `$initial_X` that is absent
 * takes X's value when X is present, null included (presence decides, as with a map's
 * `contains_key`). A present `$initial_X` is kept whatever X holds. The lookup happens only on a
 * miss, so properties that exist cost nothing extra.
 */
export function withInitialTwins(read: PropertyReader): PropertyReader {
  return (wanted) => {
    const hit = read(wanted);
    if (hit.found) return hit;
    const counterpart = COUNTERPART_OF.get(wanted);
    return counterpart === undefined ? hit : read(counterpart);
  };
}

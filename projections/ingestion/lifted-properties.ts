import type { Properties, PropertyUpdates } from './properties';
import { propertyUpdatesOf } from './properties';

/**
 * The event properties PostHog's ingestion copies onto the event's person: `$set` as they are, and
 * `$set_once` as `$initial_<key without its leading $>` (PostHog's `eventToPersonProperties`,
 * nodejs/src/common/persons/person-property-utils.ts).
 */
const DEVICE_AND_PAGE_KEYS = [
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
  '$os_name',
  '$os_version',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$raw_user_agent',
] as const;

/** UTM and ad click ids (PostHog's CAMPAIGN_PROPERTIES, kept in sync with posthog-js CAMPAIGN_PARAMS). */
const CAMPAIGN_KEYS = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_name',
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
  'irclid',
  '_kx',
  'epik',
  'qclid',
  'sccid',
] as const;

const LIFTED_PROPERTY_KEYS: readonly string[] = [...DEVICE_AND_PAGE_KEYS, ...CAMPAIGN_KEYS];

const initialKeyOf = (key: string) => `$initial_${key.replace('$', '')}`;

/** The `$initial_` twin of each lifted key, at the same index, so the per-event pass builds no strings. */
const LIFTED_INITIAL_KEYS: readonly string[] = LIFTED_PROPERTY_KEYS.map(initialKeyOf);

/**
 * What PostHog's GeoIP transformation writes to the person when a lookup succeeded: every one of
 * these as `$set.$geoip_<k>` and `$set_once.$initial_geoip_<k>`, null when the lookup did not know it
 * (so a stale city is cleared). plugin-server/src/cdp/templates/_transformations/geoip/geoip.template.ts
 */
const GEOIP_KEYS = [
  'city_name',
  'city_confidence',
  'subdivision_2_name',
  'subdivision_2_code',
  'subdivision_1_name',
  'subdivision_1_code',
  'country_name',
  'country_code',
  'continent_name',
  'continent_code',
  'postal_code',
  'latitude',
  'longitude',
  'accuracy_radius',
  'time_zone',
] as const;

const GEOIP_EVENT_KEYS: readonly string[] = GEOIP_KEYS.map((k) => `$geoip_${k}`);
const GEOIP_INITIAL_KEYS: readonly string[] = GEOIP_KEYS.map((k) => `$initial_geoip_${k}`);

/** PostHog lifts nothing from these (normalizeEvent). */
const NOT_LIFTED_EVENTS = new Set(['$snapshot', '$performance_event']);

/** Processed apart from other person updates in PostHog, so they never change a person. */
const NO_PERSON_UPDATE_EVENTS = new Set(['$exception', '$$heatmap']);

/** PostHog strips person operations from group identify events (normalizeProcessPerson). */
const GROUP_IDENTIFY_EVENTS = new Set(['$groupidentify', '$group_identify']);

const hasOwn = (obj: Properties, key: string) => Object.prototype.hasOwnProperty.call(obj, key);

/** The updates being built for one event; allocated only once it has something to add. */
interface Draft {
  set: Properties;
  setOnce: Properties;
  unset: readonly string[];
}

const draftFrom = (explicit: PropertyUpdates | null): Draft => ({
  set: { ...explicit?.set },
  setOnce: { ...explicit?.setOnce },
  unset: explicit?.unset ?? [],
});

/**
 * The events this service stores carry the `$geoip_*` properties the capture endpoint looked up from
 * the client address; PostHog's transformation ran only with an `$ip` and no `$geoip_disable`.
 */
function geoIpFound(properties: Properties): boolean {
  if (properties.$geoip_disable === true || !properties.$ip) return false;
  for (let i = 0; i < GEOIP_EVENT_KEYS.length; i++) if (hasOwn(properties, GEOIP_EVENT_KEYS[i])) return true;
  return false;
}

/**
 * The person-property operations one event applies, by PostHog's ingestion: its explicit
 * `$set`/`$set_once`/`$unset`, the GeoIP result (which overwrites explicit `$geoip_*` keys, as the
 * transformation runs first), then the lifted device, page and campaign properties (explicit keys
 * win over lifted ones; a null is never written to `$set_once`, so it cannot block the real first
 * touch). One pass over fixed key lists; nothing is allocated when the event carries none of them.
 * The caller has already dropped the operations of personless events.
 */
export function personUpdatesOf(event: string, properties: Properties): PropertyUpdates | null {
  if (NO_PERSON_UPDATE_EVENTS.has(event) || GROUP_IDENTIFY_EVENTS.has(event)) return null;
  const explicit = propertyUpdatesOf(properties);
  let draft: Draft | null = null;

  if (geoIpFound(properties)) {
    draft = draftFrom(explicit);
    for (let i = 0; i < GEOIP_EVENT_KEYS.length; i++) {
      const key = GEOIP_EVENT_KEYS[i];
      const value = hasOwn(properties, key) ? properties[key] : null;
      draft.set[key] = value;
      draft.setOnce[GEOIP_INITIAL_KEYS[i]] = value;
    }
  }
  if (!NOT_LIFTED_EVENTS.has(event)) draft = lift(properties, explicit, draft);
  return draft ?? explicit;
}

function lift(properties: Properties, explicit: PropertyUpdates | null, found: Draft | null): Draft | null {
  let draft = found;
  // Server-side SDKs describe their host, not the user's device: PostHog keeps that OS off the person.
  const server = properties.$is_server === true;
  const osName = hasOwn(properties, '$os_name') ? properties.$os_name : undefined;
  for (let i = 0; i < LIFTED_PROPERTY_KEYS.length; i++) {
    const key = LIFTED_PROPERTY_KEYS[i];
    let value: unknown;
    if (hasOwn(properties, key)) value = properties[key];
    // Some SDKs send `$os_name` instead of `$os`; PostHog fills `$os` from it.
    else if (key === '$os' && osName !== undefined) value = osName;
    else continue;
    if (server && (key === '$os' || key === '$os_version')) continue;
    draft ??= draftFrom(explicit);
    if (!hasOwn(draft.set, key)) draft.set[key] = value;
    const initialKey = LIFTED_INITIAL_KEYS[i];
    if (value != null && !hasOwn(draft.setOnce, initialKey)) draft.setOnce[initialKey] = value;
  }
  // `$os_name` only stands in for `$os` on the person (PostHog, since August 2024).
  if (draft && osName !== undefined && !server) {
    if (osName !== null && !hasOwn(draft.setOnce, '$initial_os')) draft.setOnce.$initial_os = osName;
    delete draft.set.$os_name;
    delete draft.setOnce.$initial_os_name;
  }
  return draft;
}

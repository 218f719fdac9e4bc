import type { Properties, PropertyUpdates } from './properties';
import { sameValue } from './properties';

/** Events whose person updates are always written (PostHog's PERSON_EVENTS). */
const PERSON_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$set']);

/**
 * Properties that change too often to be worth a person write on their own (PostHog's
 * FILTERED_PERSON_UPDATE_PROPERTIES, nodejs/src/common/persons/person-property-utils.ts). Campaign
 * params, `$app_*`, `$geoip_country_name` and `$geoip_city_name` are not in it: they do trigger one.
 */
const FILTERED_PERSON_UPDATE_PROPERTIES = new Set([
  '$current_url',
  '$pathname',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$browser',
  '$browser_version',
  '$device_type',
  '$raw_user_agent',
  '$os',
  '$os_name',
  '$os_version',
  '$geoip_postal_code',
  '$geoip_time_zone',
  '$geoip_latitude',
  '$geoip_longitude',
  '$geoip_accuracy_radius',
  '$geoip_subdivision_1_code',
  '$geoip_subdivision_1_name',
  '$geoip_subdivision_2_code',
  '$geoip_subdivision_2_name',
  '$geoip_subdivision_3_code',
  '$geoip_subdivision_3_name',
  '$geoip_city_confidence',
  '$geoip_country_confidence',
  '$geoip_postal_code_confidence',
  '$geoip_subdivision_1_confidence',
  '$geoip_subdivision_2_confidence',
]);

/**
 * Whether an event's updates to an existing person are written, by PostHog's rule: always for person
 * events; otherwise only if they add a key, unset one, or change a key outside the filtered list (and
 * then every change of the event is written with it). PostHog decides this per flushed batch; here
 * it is decided per event, so the outcome does not depend on how the log was batched.
 */
export function updatesTriggerWrite(event: string, before: Properties, updates: PropertyUpdates): boolean {
  if (PERSON_EVENTS.has(event)) return true;
  const { setOnce, set, unset } = updates;
  if (setOnce) {
    for (const key of Object.keys(setOnce)) if (!Object.hasOwn(before, key)) return true;
  }
  if (set) {
    for (const key of Object.keys(set)) {
      // Checked first: most keys of a browser event are filtered ones that already exist.
      if (FILTERED_PERSON_UPDATE_PROPERTIES.has(key)) {
        if (!Object.hasOwn(before, key)) return true;
      } else if (!Object.hasOwn(before, key) || !sameValue(before[key], set[key])) {
        return true;
      }
    }
  }
  for (const key of unset) if (Object.hasOwn(before, key)) return true;
  return false;
}

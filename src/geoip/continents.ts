/** MaxMind's seven continent codes with the English names GeoLite2 reports for them. */
export const CONTINENT_NAMES = {
  AF: 'Africa',
  AN: 'Antarctica',
  AS: 'Asia',
  EU: 'Europe',
  NA: 'North America',
  OC: 'Oceania',
  SA: 'South America',
} as const;

export type ContinentCode = keyof typeof CONTINENT_NAMES;

import { describe, expect, it } from 'vitest';
import { CONTINENT_NAMES, COUNTRIES, countryInfo } from '../../../src/geoip';

describe('country table', () => {
  const codes = Object.keys(COUNTRIES);

  it('covers ISO 3166-1 alpha-2 (249 codes) plus Kosovo', () => {
    expect(codes).toHaveLength(250);
    expect(codes).toContain('XK');
  });

  it('uses two uppercase letters for every code', () => {
    for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  it('assigns every country one of the seven continents and a name', () => {
    const continents = Object.keys(CONTINENT_NAMES);
    expect(continents.sort()).toEqual(['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA']);
    for (const [name, continent] of Object.values(COUNTRIES)) {
      expect(continents).toContain(continent);
      expect(name.trim()).not.toBe('');
    }
  });

  it.each([
    ['DE', 'Germany', 'EU', 'Europe'],
    ['JP', 'Japan', 'AS', 'Asia'],
    ['BR', 'Brazil', 'SA', 'South America'],
    ['AU', 'Australia', 'OC', 'Oceania'],
    ['ZA', 'South Africa', 'AF', 'Africa'],
    ['CA', 'Canada', 'NA', 'North America'],
    ['AQ', 'Antarctica', 'AN', 'Antarctica'],
    ['US', 'United States', 'NA', 'North America'],
    ['GB', 'United Kingdom', 'EU', 'Europe'],
    ['RU', 'Russia', 'EU', 'Europe'],
    ['TR', 'Turkey', 'AS', 'Asia'],
    ['CD', 'DR Congo', 'AF', 'Africa'],
  ])('%s is %s in %s', (code, countryName, continentCode, continentName) => {
    expect(countryInfo(code)).toEqual({ countryName, continentCode, continentName });
  });

  it('accepts lowercase codes and knows nothing of unknown ones', () => {
    expect(countryInfo('de')?.countryName).toBe('Germany');
    expect(countryInfo('ZZ')).toBeUndefined();
    expect(countryInfo('')).toBeUndefined();
  });
});

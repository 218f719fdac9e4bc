import fc from 'fast-check';

const HOSTILE = ["'", "''", '\\', '"', '`', ';', '--', '/*', '*/', '\0', '\n', '%', '_', '*', '?', '[', ']', '$', '.', ':', '{', '}', '@hogql_p0', '{x:String}', "'; DROP TABLE events; --", 'ü', '🎉', '\u2028', '\u0001'];

/** No lone surrogate: such a string cannot be stored as UTF-8 by any engine. */
export const isWellFormed = (s: string): boolean => !/\p{Cs}/u.test(s);

/** Any well-formed string, biased towards the characters that break naive SQL building. */
export const hostileText = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.array(fc.constantFrom(...HOSTILE), { maxLength: 8 }).map((parts) => parts.join('')),
  )
  .filter(isWellFormed);

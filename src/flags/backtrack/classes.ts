/**
 * Character predicates of the backtracking matcher, with the Unicode meaning the flags service's
 * Rust engines give them: `\d` is any decimal digit (Nd), `\w` letters, marks, digits, connector
 * punctuation and joiners, `\s` any White_Space. ASCII is decided inline; other code points ask a
 * one-character JS property test, which runs in constant time.
 */
export type CharTest = (cp: number) => boolean;

const WORD = /^[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]$/u;
const DIGIT = /^\p{Nd}$/u;
const SPACE = /^\p{White_Space}$/u;

export const isWord: CharTest = (cp) =>
  cp < 128
    ? (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) || cp === 95
    : WORD.test(String.fromCodePoint(cp));

export const isDigit: CharTest = (cp) => (cp < 128 ? cp >= 48 && cp <= 57 : DIGIT.test(String.fromCodePoint(cp)));

export const isSpace: CharTest = (cp) =>
  cp < 128 ? cp === 32 || (cp >= 9 && cp <= 13) : SPACE.test(String.fromCodePoint(cp));

export const isHex: CharTest = (cp) => (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 70) || (cp >= 97 && cp <= 102);

function ascii(re: RegExp): CharTest {
  return (cp) => cp < 128 && re.test(String.fromCharCode(cp));
}

/** `[[:name:]]` classes, ASCII only as in Rust. */
export const POSIX: Record<string, CharTest> = {
  alnum: ascii(/[0-9A-Za-z]/),
  alpha: ascii(/[A-Za-z]/),
  ascii: (cp) => cp < 128,
  blank: ascii(/[\t ]/),
  cntrl: ascii(/[\x00-\x1f\x7f]/),
  digit: ascii(/[0-9]/),
  graph: ascii(/[!-~]/),
  lower: ascii(/[a-z]/),
  print: ascii(/[ -~]/),
  punct: ascii(/[!-/:-@[-`{-~]/),
  space: ascii(/[\t\n\v\f\r ]/),
  upper: ascii(/[A-Z]/),
  word: ascii(/[0-9A-Za-z_]/),
  xdigit: ascii(/[0-9A-Fa-f]/),
};

const PROPERTY_NAME = /^[A-Za-z0-9_=]{1,40}$/;

/** `\p{name}`: a general category or binary property, else a script; null when unknown. */
export function unicodeProperty(name: string): CharTest | null {
  if (!PROPERTY_NAME.test(name)) return null;
  for (const source of [`^\\p{${name}}$`, `^\\p{Script=${name}}$`]) {
    try {
      const re = new RegExp(source, 'u');
      return (cp) => re.test(String.fromCodePoint(cp));
    } catch {
      // not this form
    }
  }
  return null;
}

/** Simple case folding for one code point (the lower-case form when it is one code point). */
export function fold(cp: number): number {
  if (cp < 128) return cp >= 65 && cp <= 90 ? cp + 32 : cp;
  const lower = String.fromCodePoint(cp).toLowerCase();
  const folded = lower.codePointAt(0)!;
  return lower.length === String.fromCodePoint(folded).length ? folded : cp;
}

/** A predicate that also accepts the other cases of a code point. */
export function caseless(test: CharTest): CharTest {
  return (cp) => {
    if (test(cp)) return true;
    const text = String.fromCodePoint(cp);
    const lower = text.toLowerCase();
    const upper = text.toUpperCase();
    return (
      (lower !== text && lower.length === text.length && test(lower.codePointAt(0)!)) ||
      (upper !== text && upper.length === text.length && test(upper.codePointAt(0)!))
    );
  };
}

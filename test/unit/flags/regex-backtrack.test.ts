import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchProperty } from '../../../src/flags';
import {
  BACKTRACK_LIMIT,
  MAX_STEPS,
  backtrackSearch,
  compileBacktracking,
} from '../../../src/flags/backtrack';
import { NOW } from './helpers';

// Patterns RE2 refuses run on the bounded backtracking engine, as PostHog's flags service runs them
// on fancy-regex (backtrack limit 10,000; an invalid pattern or an exceeded limit is no match).

const find = (pattern: string, subject: string) => backtrackSearch(compileBacktracking(pattern), subject);
const m = (operator: string, value: unknown, actual: unknown) =>
  matchProperty({ key: 'k', operator, value }, { k: actual }, NOW);

describe('lookaround, backreferences and atomic groups', () => {
  const cases: [string, string, boolean][] = [
    // lookahead
    ['foo(?=bar)', 'foobar', true],
    ['foo(?=bar)', 'foobaz', false],
    ['foo(?!bar)', 'foobaz', true],
    ['foo(?!bar)', 'foobar', false],
    ['^(?=.*[A-Z])(?=.*\\d).{8,}$', 'Passw0rdxx', true],
    ['^(?=.*[A-Z])(?=.*\\d).{8,}$', 'password1', false],
    ['^(?!.*@example\\.com$).*$', 'bob@posthog.com', true],
    ['^(?!.*@example\\.com$).*$', 'bob@example.com', false],
    // lookbehind (constant length, as fancy-regex requires)
    ['(?<=@)example\\.com$', 'bob@example.com', true],
    ['(?<=@)example\\.com$', 'bob.example.com', false],
    ['(?<!test-)user', 'prod-user', true],
    ['(?<!test-)user', 'test-user', false],
    ['(?<=^ab|^cd)x', 'cdx', true],
    ['(?<=^a)b', 'b', false],
    // backreferences, numbered and named
    ['(\\w+) \\1', 'hello hello', true],
    ['(\\w+) \\1', 'hello world', false],
    ['^(?P<x>[a-z])(?<y>\\d)\\k<y>\\k<x>$', 'a11a', true],
    ['^(?P<x>[a-z])(?<y>\\d)\\k<y>\\k<x>$', 'a12a', false],
    ['(a)|b\\1', 'b', false], // a group that did not take part fails the reference (fancy-regex)
    ['(?i)(ab)\\1', 'abAB', true],
    ['(ab)\\1', 'abAB', false],
    // atomic groups never give back what they matched
    ['(?>a+)b', 'aaab', true],
    ['(?>a+)a', 'aaaa', false],
    // the ordinary syntax around them
    ['(?i)^HELLO(?=!)', 'hello!', true],
    ['(?s)a.b(?=c)', 'a\nbc', true],
    ['a.b(?=c)', 'a\nbc', false],
    ['(?m)^b$(?=\\n)', 'a\nb\nc', true],
    ['\\bcat\\b(?!s)', 'a cat here', true],
    ['\\bcat\\b(?!s)', 'concatenate', false],
    ['[[:digit:]]{3}(?=-)', 'call 555-1234', true],
    ['\\p{Greek}+(?=!)', 'Ωμέγα!', true],
    ['\\d(?=€)', '٣€', true], // \d is Unicode-aware, as in Rust
    ['x{2,3}(?!x)', 'xxxx', true],
    ['^(?:ab){2}(?!ab)', 'ababab', false],
    ['\\x41\\u{1F600}(?=z)', 'A😀z', true],
    // possessive quantifiers are atomic
    ['a++b', 'aab', true],
    ['a++a', 'aaa', false],
    ['^(?:ab)*+ab', 'abab', false],
    // lookbehind over an alternation of constant-length branches
    ['(?<=a|bb)c', 'xac', true],
    ['(?<=a|bb)c', 'abc', false],
    ['(?<!a|bb)c', 'bbc', false],
    ['(?<!a|bb)c', 'xbc', true],
    // conditionals on a group
    ['(\\d)?x(?(1)y|z)', '1xy', true],
    ['(\\d)?x(?(1)y|z)', 'xz', true],
    ['(\\d)?x(?(1)y|z)', 'xy', false],
    ['(?<n>a)?b(?(<n>)c)', 'abc', true],
    // other reference forms
    ['(a)(b)\\k<-1>', 'abb', true],
    ['(a)(b)\\k<-1>', 'aba', false],
    ['(?P<x>a)(?P=x)', 'aa', true],
    // nested classes and class set operations (Rust syntax)
    ['^[a-z&&[^aeiou]]+(?=!)', 'xyz!', true],
    ['^[a-z&&[^aeiou]]+(?=!)', 'aei!', false],
    ['^[[ab]c]{3}(?=d)', 'abcd', true],
    ['^[a-c--b]x(?=y)', 'bxy', false],
    ['^[a-c--b]x(?=y)', 'cxy', true],
    // fancy-regex escapes, comments and literal braces
    ['\\h+$(?<=e)', 'cafe', true],
    ['a\\Z(?<=a)', 'a\n\n', true],
    ['a\\Z(?<=a)', 'a\nb', false],
    ['\\Ga(?=b)', 'ab', true],
    ['\\Ga(?=b)', 'cab', false],
    ['a\\Kb(?=c)', 'abc', true],
    ['a\\Ob(?=c)', 'a\nbc', true],
    ['{a}(?=b)', 'x{a}b', true],
    ['(?#a comment)a(?=b)', 'ab', true],
    // verbose mode and swapped greed
    ['(?x) a \\  b (?= c ) # a comment', 'a bc', true],
    ['(?x)a b(?=c)', 'abc', true],
    ['(?U)^(?>a+)b', 'aab', false], // lazy inside an atomic group: one `a`, never more
    ['(?U)^(?>a+?)b', 'aab', true],
    ['^(?>a+)b', 'aab', true],
  ];
  for (const [pattern, subject, expected] of cases) {
    it(`${pattern} on ${JSON.stringify(subject)} is ${expected}`, () => {
      expect(find(pattern, subject).found).toBe(expected);
      expect(m('regex', pattern, subject)).toBe(expected);
      expect(m('not_regex', pattern, subject)).toBe(!expected);
    });
  }

  it('searches case-sensitively and unanchored, like the flags service', () => {
    expect(m('regex', 'b(?=c)', 'aBC')).toBe(false);
    expect(m('regex', 'b(?=c)', 'xxxbcxxx')).toBe(true);
  });
});

describe('patterns the engine refuses are invalid: neither regex nor not_regex matches', () => {
  const invalid = [
    '(?<=a+)b', // variable-length lookbehind
    '(a)\\2', // reference to a missing group
    '\\k<nope>(?<x>a)',
    '(?u)a(?=c)', // unsupported flag
    '(?=a)*', // repeated lookaround
    '(?(1)a|b)', // condition on a missing group
    '(?(?=a)a|b)', // condition other than a group
    '(?(1)a|b|c)(x)',
    '(?P>x)(?<x>a)', // subroutine call
    '(?<=a|b+)c', // a variable-length branch in a lookbehind alternation
    '(?=a',
    'a{2,1}(?=b)',
    '\\q(?=a)',
  ];
  for (const pattern of invalid) {
    it(JSON.stringify(pattern), () => {
      expect(() => compileBacktracking(pattern)).toThrow();
      expect(m('regex', pattern, 'aab')).toBe(false);
      expect(m('not_regex', pattern, 'aab')).toBe(false);
    });
  }
});

describe('the step limit', () => {
  const limited = (pattern: string, subject: string) => {
    const result = find(pattern, subject);
    expect(result.found).toBeNull();
    expect(result.backtracks).toBeLessThanOrEqual(BACKTRACK_LIMIT + 1);
    expect(result.steps).toBeLessThanOrEqual(MAX_STEPS + 1);
    expect(m('regex', pattern, subject)).toBe(false);
    expect(m('not_regex', pattern, subject)).toBe(false);
    return result;
  };

  it('gives up on catastrophic backtracking after the backtrack limit: no match either way', () => {
    const r = limited('^(a+)+(?=c)', `${'a'.repeat(30)}b`);
    expect(r.backtracks).toBe(BACKTRACK_LIMIT + 1);
    limited('(a|aa)+(?!a)c', 'a'.repeat(40));
    limited('^(a*)*\\1b$', 'a'.repeat(30));
  });

  it('bounds the work of long backreference comparisons too', () => {
    const r = limited('(a*)(?:\\1)*b', 'a'.repeat(9_000));
    expect(r.steps).toBe(MAX_STEPS + 1);
    expect(r.backtracks).toBeLessThan(BACKTRACK_LIMIT);
  });

  it('a pattern anchored at the start is still retried at every position, as fancy-regex does', () => {
    // fancy-regex searches `(?s:.)*?(…)`: `^` fails at once at each later position, but each of the
    // n + 1 start positions costs a backtrack, so 10,000 characters exhaust the limit of 10,000.
    const justUnder = `x${'a'.repeat(9_998)}`;
    expect(find('^(?!x)a', justUnder)).toMatchObject({ found: false, backtracks: BACKTRACK_LIMIT });
    expect(m('not_regex', '^(?!x)a', justUnder)).toBe(true);
    const atLimit = `x${'a'.repeat(9_999)}`;
    expect(limited('^(?!x)a', atLimit).backtracks).toBe(BACKTRACK_LIMIT + 1);
    // Unanchored, the same.
    expect(find('(?!x)b', atLimit).found).toBeNull();
  });

  it('branches inside plain lookaround and atomic bodies are not backtracks (fancy-regex runs them linearly)', () => {
    // Without that, `.*` in the lookahead would give back 9,999 characters one backtrack at a time.
    const long = 'a'.repeat(9_999);
    const r = find('^(?!.*test).*$', long);
    expect(r.found).toBe(true);
    expect(r.backtracks).toBeLessThan(10);
    expect(m('regex', '^(?!.*test).*$', long)).toBe(true);
    expect(m('not_regex', '^(?!.*test).*$', `${long.slice(1)}test`.slice(-9_999))).toBe(true);
    // The atomic group gives nothing back: only the start positions count (one each).
    expect(find('^(?>a*)a', 'a'.repeat(5_000))).toMatchObject({ found: false, backtracks: 5_001 });
    // A body with fancy features of its own counts as usual.
    expect(find('^(?=(a+)+\\1c)', `${'a'.repeat(30)}b`).found).toBeNull();
  });

  it('a lookaround body costs linear work over the whole search, as on the linear engine', () => {
    // fancy-regex runs `(a*)*b` on its linear engine at each of the 31 positions: false, 31
    // backtracks (the start positions). A plain backtracking search of it would be exponential.
    const nested = find('(?=(a*)*b)', 'a'.repeat(30));
    expect(nested).toMatchObject({ found: false, backtracks: 31 });
    expect(nested.steps).toBeLessThan(2_000);
    expect(m('not_regex', '(?=(a*)*b)', 'a'.repeat(30))).toBe(true);
    // A lookahead that scans the rest of a long value at every start position: each branch point of
    // the body is explored once per search, not once per position.
    for (const [pattern, subject, found] of [
      ['(?=.*foo)bar', 'x'.repeat(9_000), false],
      ['(?=.*foo)bar', `${'x'.repeat(8_000)}barfoo`, true],
      ['(?=.*a)b', 'a'.repeat(9_000), false],
      ['(?=(.*)x)', 'a'.repeat(9_000), false], // a capture inside: failures are still remembered
      ['(?=(.*)x)', `${'a'.repeat(9_000)}x`, true],
      // Entered again at 1, the body meets a branch point whose end is known, but it must still run
      // to set the group the reference reads: \1 is "a" here, not the "aa" of the first entry.
      ['(?=(a+)x)(?<!^)\\1x', 'aax', true],
    ] as const) {
      const run = find(pattern, subject);
      expect(run.found, `${pattern} on ${subject.length} characters`).toBe(found);
      expect(run.steps).toBeLessThan(MAX_STEPS / 4);
      expect(run.backtracks).toBeLessThanOrEqual(subject.length + 1);
      expect(m(found ? 'regex' : 'not_regex', pattern, subject)).toBe(true);
    }
  });

  it('free branches are still bounded by the step limit', () => {
    // Bodies are remembered per branch point, so only a huge body over a long value gets there.
    const r = limited(`(?=(?:${'a?'.repeat(60)})*b)`, 'a'.repeat(9_000));
    expect(r.backtracks).toBeLessThan(BACKTRACK_LIMIT);
    expect(r.steps).toBe(MAX_STEPS + 1);
  });

  it('a value that needs few backtracks is answered', () => {
    const r = find('^(a+)+(?=b)', `${'a'.repeat(30)}b`);
    expect(r.found).toBe(true);
    expect(r.backtracks).toBeLessThan(100);
  });

  it('patterns RE2 accepts stay on RE2 and are never cut short', () => {
    // Linear time: the right answer even where a backtracking engine would explode.
    expect(m('regex', '(a+)+$', `${'a'.repeat(5_000)}!`)).toBe(false);
    expect(m('not_regex', '(a+)+$', `${'a'.repeat(5_000)}!`)).toBe(true);
  });
});

// A reference check against JS RegExp on small generated patterns and inputs. The generator keeps
// to syntax both read alike: backreferences only right after their own group (JS and Rust differ on
// references to groups that did not take part), constant-length lookbehind bodies without groups.
describe('agrees with JS RegExp on small patterns', () => {
  type Gen = (counter: { n: number }) => string;
  const leaf = fc.constantFrom<Gen>(
    () => 'a',
    () => 'b',
    () => '.',
    () => '[ab]',
    () => '[^a]',
    () => '\\d',
    () => '\\w',
    () => '\\s',
  );
  const fixed = fc.array(fc.constantFrom('a', 'b', '.', '[ab]', '\\d'), { minLength: 1, maxLength: 3 }).map((xs) => xs.join(''));
  const quantifier = fc.constantFrom('*', '+', '?', '{1,2}', '{2}', '{0,1}', '*?', '+?', '??');

  const generators = fc.letrec<{ pattern: Gen; atom: Gen; unit: Gen }>((tie) => ({
    pattern: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('unit'),
      fc.array(tie('unit'), { minLength: 2, maxLength: 4 }).map((units) => (c: { n: number }) => units.map((u) => u(c)).join('')),
      fc.tuple(tie('pattern'), tie('pattern')).map(([x, y]) => (c: { n: number }) => `${x(c)}|${y(c)}`),
    ),
    atom: fc.oneof(
      { depthSize: 'small' },
      leaf,
      tie('pattern').map((x) => (c: { n: number }) => `(?:${x(c)})`),
      tie('pattern').map((x) => (c: { n: number }) => {
        c.n++;
        return `(${x(c)})`;
      }),
    ),
    unit: fc.oneof(
      { depthSize: 'small' },
      tie('atom'),
      fc.tuple(tie('atom'), quantifier).map(([x, q]) => (c: { n: number }) => `${x(c)}${q}`),
      fc.constantFrom<Gen>(() => '^', () => '$', () => '\\b', () => '\\B'),
      tie('pattern').map((x) => (c: { n: number }) => `(?=${x(c)})`),
      tie('pattern').map((x) => (c: { n: number }) => `(?!${x(c)})`),
      fixed.map((x) => () => `(?<=${x})`),
      fixed.map((x) => () => `(?<!${x})`),
      leaf.map((x) => (c: { n: number }) => {
        const group = ++c.n;
        return `(${x(c)})\\${group}`;
      }),
    ),
  }));
  const pattern = generators.pattern.map((gen) => gen({ n: 0 }));

  it('on random patterns and inputs', () => {
    const subject = fc.string({ unit: fc.constantFrom('a', 'b', '1', ' ', '\n'), maxLength: 8 });
    let compared = 0;
    fc.assert(
      fc.property(pattern, subject, (source, text) => {
        const result = find(source, text);
        fc.pre(result.found !== null);
        compared++;
        expect(result.found, `${source} on ${JSON.stringify(text)}`).toBe(new RegExp(source, 'u').test(text));
      }),
      { numRuns: 1500 },
    );
    expect(compared).toBeGreaterThan(500);
  });

  it('on lookarounds tried at many start positions (the remembered branch points)', () => {
    // Longer values, so each lookaround body is entered again and again and reuses what earlier
    // entries learned; JS RegExp recomputes everything, so any wrongly remembered outcome shows.
    // One group counter for both parts, so that a reference still names the group right before it.
    const around = fc.tuple(generators.pattern, generators.pattern, fc.constantFrom('(?=', '(?!', '(?>')).map(([x, y, open]) => {
      const counter = { n: 0 };
      return `${open}${x(counter)})${y(counter)}`;
    });
    const subject = fc.string({ unit: fc.constantFrom('a', 'b', '1', ' '), minLength: 10, maxLength: 40 });
    let compared = 0;
    fc.assert(
      fc.property(around, subject, (source, text) => {
        const result = find(source, text);
        fc.pre(result.found !== null);
        compared++;
        // JS has no atomic groups: `(?>x)` is `(?=(x))\N` there, with N a fresh group after x's.
        const js = source.startsWith('(?>') ? atomicAsJs(source) : source;
        expect(result.found, `${source} on ${JSON.stringify(text)}`).toBe(new RegExp(js, 'u').test(text));
      }),
      { numRuns: 600 },
    );
    expect(compared).toBeGreaterThan(300);
  });
});

/** `(?>x)y` as JS reads it: `(?=(x))\1y`, the new group being the first, so every reference shifts by one. */
function atomicAsJs(source: string): string {
  let depth = 0;
  let end = 3;
  for (; end < source.length; end++) {
    const c = source[end];
    if (c === '\\') end++;
    else if (c === '(') depth++;
    else if (c === ')') {
      if (depth === 0) break;
      depth--;
    }
  }
  const shift = (text: string) => text.replace(/\\(\d+)/g, (_, d: string) => `\\${Number(d) + 1}`);
  return `(?=(${shift(source.slice(3, end))}))\\1${shift(source.slice(end + 1))}`;
}

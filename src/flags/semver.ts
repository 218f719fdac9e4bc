/**
 * Semantic-version operators, lenient the way the flags service is about what apps actually send:
 * a leading `v` and surrounding spaces are ignored, missing minor/patch count as 0 ("3.10" is
 * 3.10.0) and leading zeros are dropped ("3.08" is 3.8.0). Pre-release tags order below the release
 * for the comparison operators; build metadata is ignored. The range operators (tilde, caret,
 * wildcard) look at major.minor.patch only.
 */

export interface Semver {
  core: [number, number, number];
  pre: string[];
}

const NUMERIC = /^\d+$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

// Filter values repeat on every evaluation: remember parses (bounded; results are never mutated).
const parsed = new Map<string, Semver | null>();

export function parseSemver(input: unknown): Semver | null {
  if (typeof input !== 'string' && typeof input !== 'number') return null;
  const key = String(input);
  let hit = parsed.get(key);
  // Stryker disable next-line ConditionalExpression: equivalent, a cache: parsing again gives the same result
  if (hit === undefined) {
    hit = parseUncached(key);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, only bounds the cache's memory
    if (parsed.size >= 5000) parsed.clear();
    parsed.set(key, hit);
  }
  return hit;
}

function parseUncached(input: string): Semver | null {
  const text = String(input).trim().replace(/^[vV]/, '');
  const withoutBuild = text.split('+')[0];
  const dash = withoutBuild.indexOf('-');
  const coreText = dash === -1 ? withoutBuild : withoutBuild.slice(0, dash);
  const preText = dash === -1 ? null : withoutBuild.slice(dash + 1);
  const parts = coreText.split('.');
  if (parts.length > 3 || !parts.every((p) => NUMERIC.test(p))) return null;
  const core = [0, 1, 2].map((i) => (parts[i] === undefined ? 0 : Number(parts[i]))) as [number, number, number];
  if (!core.every(Number.isSafeInteger)) return null;
  const pre = preText === null ? [] : preText.split('.');
  if (preText !== null && !pre.every((id) => IDENTIFIER.test(id))) return null;
  return { core, pre };
}

function compareCore(a: readonly number[], b: readonly number[]): number {
  // Stryker disable next-line EqualityOperator: equivalent, index 3 is undefined on both sides
  for (let i = 0; i < 3; i++) {
    // Stryker disable next-line EqualityOperator: equivalent, the parts differ here
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

// Semver precedence for pre-release identifiers: numeric ones compare as numbers and rank
// below alphanumeric ones; a shorter list that is a prefix of a longer one ranks lower.
function comparePre(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 0;
  if (a.length === 0) return 1;
  if (b.length === 0) return -1;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    const [xNum, yNum] = [NUMERIC.test(x), NUMERIC.test(y)];
    // Numerically: "01" is 1, as leading zeros of the core are dropped (comparing them as unequal
    // ranked each above the other).
    if (xNum && yNum) {
      const order = Math.sign(Number(x) - Number(y));
      if (order !== 0) return order;
      continue;
    }
    if (xNum !== yNum) return xNum ? -1 : 1;
    // Stryker disable next-line EqualityOperator: equivalent, x and y differ here
    return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

export function compareSemver(a: Semver, b: Semver): number {
  return compareCore(a.core, b.core) || comparePre(a.pre, b.pre);
}

type Range = { lower: [number, number, number]; upper: [number, number, number] };

function within(version: Semver, range: Range | null): boolean {
  if (range === null) return false;
  return compareCore(version.core, range.lower) >= 0 && compareCore(version.core, range.upper) < 0;
}

/** `~1.2.3` allows patch changes: [1.2.3, 1.3.0). */
function tildeRange(filter: unknown): Range | null {
  const v = parseSemver(filter);
  if (!v) return null;
  const [major, minor] = v.core;
  return { lower: v.core, upper: [major, minor + 1, 0] };
}

/** `^1.2.3` allows changes right of the first non-zero part: [1.2.3, 2.0.0), `^0.2.3` -> [0.2.3, 0.3.0). */
function caretRange(filter: unknown): Range | null {
  const v = parseSemver(filter);
  if (!v) return null;
  const [major, minor, patch] = v.core;
  if (major > 0) return { lower: v.core, upper: [major + 1, 0, 0] };
  if (minor > 0) return { lower: v.core, upper: [0, minor + 1, 0] };
  return { lower: v.core, upper: [0, 0, patch + 1] };
}

/** `1.*` is [1.0.0, 2.0.0), `1.2.*` is [1.2.0, 1.3.0), `*` is everything; no wildcard means that exact version. */
function wildcardRange(filter: unknown): Range | null {
  if (typeof filter !== 'string' && typeof filter !== 'number') return null;
  const text = String(filter).trim().replace(/^[vV]/, '');
  // Stryker disable next-line ArrayDeclaration: equivalent, every version is at least 0.0.0, and compareCore with [] says "above"
  if (text === '*' || text.toLowerCase() === 'x') return { lower: [0, 0, 0], upper: [Infinity, 0, 0] };
  const fixed = text.replace(/(\.[*xX])+$/, '').split('.');
  if (fixed.length > 3 || !fixed.every((p) => NUMERIC.test(p))) return null;
  const n = fixed.map(Number);
  if (fixed.length === 1) return { lower: [n[0], 0, 0], upper: [n[0] + 1, 0, 0] };
  if (fixed.length === 2) return { lower: [n[0], n[1], 0], upper: [n[0], n[1] + 1, 0] };
  return { lower: [n[0], n[1], n[2]], upper: [n[0], n[1], n[2] + 1] };
}

const COMPARISONS = new Map<string, (order: number) => boolean>([
  ['semver_eq', (o) => o === 0],
  ['semver_neq', (o) => o !== 0],
  ['semver_gt', (o) => o > 0],
  ['semver_gte', (o) => o >= 0],
  ['semver_lt', (o) => o < 0],
  ['semver_lte', (o) => o <= 0],
]);

const RANGES = new Set(['semver_tilde', 'semver_caret', 'semver_wildcard']);

export function isSemverOperator(operator: string): boolean {
  return COMPARISONS.has(operator) || RANGES.has(operator);
}

/** Unparsable versions on either side never match. */
export function matchSemver(operator: string, actual: unknown, filter: unknown): boolean {
  const version = parseSemver(actual);
  if (!version) return false;
  switch (operator) {
    case 'semver_tilde':
      return within(version, tildeRange(filter));
    case 'semver_caret':
      return within(version, caretRange(filter));
    case 'semver_wildcard':
      return within(version, wildcardRange(filter));
  }
  const target = parseSemver(filter);
  const compare = COMPARISONS.get(operator);
  return target !== null && compare !== undefined && compare(compareSemver(version, target));
}

/** Whether `filter` is an operand `operator` can ever match against (checked when a flag is saved). */
export function isSemverOperand(operator: string, filter: unknown): boolean {
  if (operator === 'semver_wildcard') return wildcardRange(filter) !== null;
  return isSemverOperator(operator) && parseSemver(filter) !== null;
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChainRef, CompareOp, Literal, ParsedQuery, RawExpr } from '../../../src/exports/hogql/ast';
import { printQuery } from '../../../src/exports/hogql/hogql-print';
import { parseQuery } from '../../../src/exports/hogql/parser';
import { isWellFormed } from './arbitraries';

const name = fc.oneof(
  fc.constantFrom('event', 'properties', 'set', '$browser', 'a_1', 'select', 'NOT', 'from'),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }).filter(isWellFormed),
);
const alias = name.filter((s) => s !== '' && !/[\u0000-\u001f\u007f]/.test(s));

const numberText = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.constantFrom('0', '1.5', '-2.25', '.5', '1.', '1e3', '2E-7', '00012', '9223372036854775808'),
);
const literal: fc.Arbitrary<Literal> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }).filter(isWellFormed).map((value) => ({ kind: 'string' as const, value })),
  numberText.map((text) => ({ kind: 'number' as const, text })),
  fc.boolean().map((value) => ({ kind: 'boolean' as const, value })),
  fc.constant({ kind: 'null' as const }),
);
const chain: fc.Arbitrary<ChainRef> = fc
  .array(name, { minLength: 1, maxLength: 3 })
  .map((parts) => ({ kind: 'chain' as const, chain: parts, pos: 0 }));
const compareOp = fc.constantFrom<CompareOp>('=', '!=', '<', '<=', '>', '>=');
const inList = fc.oneof(
  fc.array(fc.string({ maxLength: 4 }).map((value): Literal => ({ kind: 'string', value })), { minLength: 1, maxLength: 3 }),
  fc.array(numberText.map((text): Literal => ({ kind: 'number', text })), { minLength: 1, maxLength: 3 }),
);

const { expr } = fc.letrec<{ expr: RawExpr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal,
    chain,
    fc.record({
      kind: fc.constant('call' as const),
      name: fc.constantFrom('toString', 'coalesce', 'lower', 'f'),
      args: fc.array(tie('expr'), { maxLength: 2 }),
      pos: fc.constant(0),
    }),
    fc.record({ kind: fc.constant('compare' as const), op: compareOp, left: tie('expr'), right: tie('expr') }),
    fc.record({ kind: fc.constant('in' as const), negated: fc.boolean(), left: tie('expr'), list: inList }),
    fc.record({
      kind: fc.constant('like' as const),
      negated: fc.boolean(),
      caseInsensitive: fc.boolean(),
      left: tie('expr'),
      pattern: fc.string({ maxLength: 6 }),
    }),
    fc.record({ kind: fc.constant('isNull' as const), negated: fc.boolean(), operand: tie('expr') }),
    fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), left: tie('expr'), right: tie('expr') }),
    fc.record({ kind: fc.constant('not' as const), operand: tie('expr') }),
  ),
}));

const query: fc.Arbitrary<ParsedQuery> = fc.record({
  select: fc.array(fc.record({ expr, alias: fc.option(alias, { nil: null }) }), { minLength: 1, maxLength: 3 }),
  tableAlias: fc.option(alias, { nil: null }),
  where: fc.option(expr, { nil: null }),
});

/** Positions differ between a generated tree and a parsed one; nothing else may. */
function withoutPositions(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'pos' ? undefined : v)));
}

describe('canonical printing', () => {
  it('parses back to the same tree', () => {
    fc.assert(
      fc.property(query, (q) => {
        const printed = printQuery(q);
        expect(withoutPositions(parseQuery(printed))).toEqual(withoutPositions(q));
        expect(printQuery(parseQuery(printed))).toBe(printed);
      }),
      { numRuns: 300 },
    );
  });
});

import type { ExportedField } from '../formats/exported-row';

/**
 * Syntax tree of the batch-export HogQL subset.
 *
 * One generic tree serves two stages: the parser leaves names as `ChainRef` (what the user wrote,
 * which the canonical re-print needs), resolution turns them into `FieldRef` / `PropertyRef`
 * (what the compilers need). Everything else is shared.
 */

/** The exported fields a query may select: the same list every file export carries. */
export type EventField = ExportedField;

/** The JSON columns a property path can start from. */
export type JsonSource = 'properties' | 'person_properties';

export type FunctionName = 'toString' | 'toInt' | 'toFloat' | 'lower' | 'upper' | 'length' | 'coalesce';

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export interface StringLiteral {
  readonly kind: 'string';
  readonly value: string;
}
/** `text` is the source spelling (decimal only, maybe with a leading `-`); kept to avoid float rounding. */
export interface NumberLiteral {
  readonly kind: 'number';
  readonly text: string;
}
export interface BooleanLiteral {
  readonly kind: 'boolean';
  readonly value: boolean;
}
export interface NullLiteral {
  readonly kind: 'null';
}
export type Literal = StringLiteral | NumberLiteral | BooleanLiteral | NullLiteral;

/** A dotted / bracketed name as written: `properties.$browser`, `properties['a b']`, `events.event`. */
export interface ChainRef {
  readonly kind: 'chain';
  readonly chain: readonly string[];
  readonly pos: number;
}
export interface FieldRef {
  readonly kind: 'field';
  readonly name: EventField;
}
export interface PropertyRef {
  readonly kind: 'property';
  readonly source: JsonSource;
  readonly path: readonly string[];
}

export interface CallOf<L> {
  readonly kind: 'call';
  readonly name: string;
  readonly args: readonly ExprOf<L>[];
  readonly pos: number;
}
export interface CompareOf<L> {
  readonly kind: 'compare';
  readonly op: CompareOp;
  readonly left: ExprOf<L>;
  readonly right: ExprOf<L>;
}
export interface InOf<L> {
  readonly kind: 'in';
  readonly negated: boolean;
  readonly left: ExprOf<L>;
  readonly list: readonly Literal[];
}
/** The pattern is always a literal: both dialects need to rewrite or bind it as a whole. */
export interface LikeOf<L> {
  readonly kind: 'like';
  readonly negated: boolean;
  readonly caseInsensitive: boolean;
  readonly left: ExprOf<L>;
  readonly pattern: string;
}
export interface IsNullOf<L> {
  readonly kind: 'isNull';
  readonly negated: boolean;
  readonly operand: ExprOf<L>;
}
export interface LogicalOf<L> {
  readonly kind: 'and' | 'or';
  readonly left: ExprOf<L>;
  readonly right: ExprOf<L>;
}
export interface NotOf<L> {
  readonly kind: 'not';
  readonly operand: ExprOf<L>;
}

export type ExprOf<L> = Literal | L | CallOf<L> | CompareOf<L> | InOf<L> | LikeOf<L> | IsNullOf<L> | LogicalOf<L> | NotOf<L>;

export type RawExpr = ExprOf<ChainRef>;
export type Expr = ExprOf<FieldRef | PropertyRef>;

export interface SelectItemOf<L> {
  readonly expr: ExprOf<L>;
  /** Explicit `AS` alias, or null. */
  readonly alias: string | null;
}

/** The parsed statement: `SELECT ... FROM events [AS t] [WHERE ...]`. */
export interface ParsedQuery {
  readonly select: readonly SelectItemOf<ChainRef>[];
  readonly tableAlias: string | null;
  readonly where: RawExpr | null;
}

export interface ResolvedColumn {
  readonly expr: Expr;
  /** The output column name: explicit alias, or PostHog's default (see `schema.ts`). */
  readonly alias: string;
}

/** A validated query, ready for the compilers; `parsed` is kept for the canonical re-print. */
export interface BatchExportQuery {
  readonly columns: readonly ResolvedColumn[];
  readonly where: Expr | null;
  readonly parsed: ParsedQuery;
}

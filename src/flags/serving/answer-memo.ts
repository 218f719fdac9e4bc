import type { EvaluateAllResult, FlagDefinition } from '../types';

/**
 * Evaluation results remembered per (project, distinct id), with the inputs they were computed
 * from. An SDK asks for the same person's flags again and again, and between two changes of the
 * project's flags or of the person nothing the answer depends on moves: the answer is computed once
 * per change instead of per request. Evaluation was the largest item of a `/flags` request's profile.
 *
 * Validity is checked, not notified: an entry is used only when every input is the same value
 * (by identity) as when it was made. That holds because the sources hand out values they never
 * change in place: a new flag definitions array per reload, new person and group property objects
 * after the ingestion read model moved (the caches drop them then), geo records shared per address.
 * A source that cannot promise that must not be given a memo.
 *
 * What is never remembered (the caller's job, see `memoizable` and evaluate-request.ts): answers
 * that depend on the clock (date operators, relative dates), on cohort membership (read from the
 * store each time), on properties or flag keys sent in the request, and answers with errors.
 *
 * Bounded like the hash memo: two generations, each holding at most `evaluationsPerGeneration`
 * evaluations (a 50-flag project's person costs 51); when the young one fills up it becomes the
 * old one and the old one is dropped. An entry asked for in the old generation moves to the young.
 * The default holds about 5,900 persons of a 50-flag project per generation; with the /flags v2
 * answer's bytes kept beside each (about 11 KB for 50 flags, see flags-json.ts) that is up to
 * ~65 MB a generation. With 200,000 the decide benchmark's 5,000 persons missed one request in
 * nine, each then evaluated and serialised again.
 */
export interface MemoEntry {
  /** The inputs, compared one by one with `===`. */
  readonly inputs: readonly unknown[];
  readonly result: EvaluateAllResult;
}

/** Distinct ids longer than this are evaluated every time (the hash memo keeps none of them either). */
const MAX_ID_LENGTH = 200;

export class AnswerMemo {
  #young = new Map<string, MemoEntry>();
  #old = new Map<string, MemoEntry>();
  #youngWeight = 0;
  /** Every result handed out as remembered: answer writers keep their bytes for these. */
  readonly #remembered = new WeakSet<EvaluateAllResult>();
  hits = 0;
  misses = 0;

  constructor(readonly evaluationsPerGeneration = 300_000) {}

  /** The remembered result if it was computed from exactly these inputs. */
  get(projectId: number, distinctId: string, inputs: readonly unknown[]): EvaluateAllResult | undefined {
    if (distinctId.length > MAX_ID_LENGTH) return undefined;
    const key = keyOf(projectId, distinctId);
    let entry = this.#young.get(key);
    if (entry === undefined) {
      entry = this.#old.get(key);
      if (entry !== undefined && sameInputs(entry.inputs, inputs)) {
        this.#old.delete(key);
        this.#keep(key, entry);
      }
    }
    if (entry === undefined || !sameInputs(entry.inputs, inputs)) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    return entry.result;
  }

  set(projectId: number, distinctId: string, inputs: readonly unknown[], result: EvaluateAllResult): void {
    if (distinctId.length > MAX_ID_LENGTH) return;
    const key = keyOf(projectId, distinctId);
    this.#old.delete(key);
    this.#keep(key, { inputs, result });
    this.#remembered.add(result);
  }

  /** Whether `result` is one this memo keeps (or kept): it will likely be answered again. */
  holds(result: EvaluateAllResult): boolean {
    return this.#remembered.has(result);
  }

  /** How many entries are kept (both generations). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  #keep(key: string, entry: MemoEntry): void {
    if (this.#youngWeight >= this.evaluationsPerGeneration) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngWeight = 0;
    }
    const replaced = this.#young.get(key);
    if (replaced !== undefined) this.#youngWeight -= weight(replaced);
    this.#young.set(key, entry);
    this.#youngWeight += weight(entry);
  }
}

const keyOf = (projectId: number, distinctId: string) => `${projectId}\u0000${distinctId}`;

const weight = (entry: MemoEntry) => 1 + (entry.result.list?.length ?? 0);

function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Operators whose outcome depends on the time of the request (relative dates such as `-7d`). */
const CLOCK_OPERATORS = /^is_date_/;

/** Whether anything in a flag's filters reads the clock or cohort membership (any depth). */
function readsClockOrCohorts(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(readsClockOrCohorts);
  if (value === null || typeof value !== 'object') return false;
  const filter = value as { type?: unknown; operator?: unknown };
  if (filter.type === 'cohort') return true;
  if (typeof filter.operator === 'string' && CLOCK_OPERATORS.test(filter.operator)) return true;
  return Object.values(value).some(readsClockOrCohorts);
}

// Per definitions array (one per cached load): the filters are walked once per change.
const memoizableOf = new WeakMap<readonly FlagDefinition[], boolean>();

/** Whether a project's answers depend only on the definitions and the stored person and groups. */
export function memoizable(definitions: readonly FlagDefinition[]): boolean {
  let found = memoizableOf.get(definitions);
  if (found === undefined) {
    found = !definitions.some((d) => !d.deleted && readsClockOrCohorts(d.filters));
    memoizableOf.set(definitions, found);
  }
  return found;
}

/**
 * A person's cohort ids, looked up on first use. Flag evaluation builds one per request but only
 * flags with a cohort condition ask, so requests without such flags never pay for the query; a
 * failing lookup then fails only the flags that asked (the engine reports them as errored).
 */
export class LazyCohortSet implements ReadonlySet<number> {
  private loaded: Set<number> | null = null;

  constructor(private readonly load: () => Iterable<number>) {}

  private get set(): Set<number> {
    this.loaded ??= new Set(this.load());
    return this.loaded;
  }

  has(value: number): boolean {
    return this.set.has(value);
  }
  get size(): number {
    return this.set.size;
  }
  forEach(fn: (value: number, key: number, set: ReadonlySet<number>) => void, thisArg?: unknown): void {
    this.set.forEach((v) => fn.call(thisArg, v, v, this));
  }
  entries(): SetIterator<[number, number]> {
    return this.set.entries();
  }
  keys(): SetIterator<number> {
    return this.set.keys();
  }
  values(): SetIterator<number> {
    return this.set.values();
  }
  [Symbol.iterator](): SetIterator<number> {
    return this.set[Symbol.iterator]();
  }
}

/** The flag engine's `personCohorts` over a cohort membership lookup. */
export const personCohorts =
  (cohortIdsOf: (projectId: number, distinctId: string) => number[]) =>
  (projectId: number, distinctId: string): ReadonlySet<number> =>
    new LazyCohortSet(() => cohortIdsOf(projectId, distinctId));

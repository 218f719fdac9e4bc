/** A value now, or one to wait for. */
export type MaybePromise<T> = T | Promise<T>;

/** `fn(value)` at once for a value at hand, after it resolves for a promise: no await on the fast path. */
export function whenReady<T, U>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}

/**
 * Values loaded asynchronously and served from memory: `get` answers a cached key synchronously (the
 * hot path never waits a turn for a value it holds) and returns a promise only on a miss, shared by
 * every caller asking for that key meanwhile. `invalidate` drops the value AND any load in flight
 * for the key: a load that began before the change must not put its (possibly stale) answer back,
 * so the next `get` after an invalidation always reads anew.
 */
export class LoadingCache<K, V> {
  private readonly values = new Map<K, V>();
  private readonly loading = new Map<K, Promise<V>>();

  /**
   * @param keep whether a loaded value is cached (e.g. not "unknown": something created a moment
   *   later must be found at once).
   */
  constructor(
    private readonly load: (key: K) => Promise<V>,
    private readonly keep: (value: V) => boolean = () => true,
  ) {}

  /** The cached value, if any (never loads). */
  peek(key: K): V | undefined {
    return this.values.get(key);
  }

  get(key: K): MaybePromise<V> {
    const value = this.values.get(key);
    if (value !== undefined || this.values.has(key)) return value as V;
    let pending = this.loading.get(key);
    if (!pending) {
      const started = this.load(key).then(
        (loaded) => {
          // Still the current load (no invalidation since): its answer may be kept.
          if (this.loading.get(key) === started) {
            this.loading.delete(key);
            if (this.keep(loaded)) this.values.set(key, loaded);
          }
          return loaded;
        },
        (err: unknown) => {
          if (this.loading.get(key) === started) this.loading.delete(key);
          throw err;
        },
      );
      pending = started;
      this.loading.set(key, pending);
    }
    return pending;
  }

  invalidate(key: K): void {
    this.values.delete(key);
    this.loading.delete(key);
  }

  clear(): void {
    this.values.clear();
    this.loading.clear();
  }
}

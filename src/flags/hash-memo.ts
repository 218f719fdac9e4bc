import { flagHash } from './hash';

/**
 * `flagHash` remembered for the ids of recent requests. The hash is a pure function of (flag key,
 * id, salt), and an SDK asks for the same person's flags again and again (each page load, each
 * server-side capture with flags), so a person's buckets are hashed once rather than per request:
 * hashing was the largest single cost of evaluating a 50-flag project. `flagHash` stays the
 * reference; the tests compare the two.
 *
 * Bounded: ids longer than MAX_ID_LENGTH are hashed and not kept, flag keys get a slot each up to
 * `maxKeys` (later keys are hashed every time), and ids live in two generations of rows holding at
 * most `cellsPerGeneration` hashes each (8 bytes a hash: 8 MB by default, 10,000 persons of a
 * 50-flag project): when the young one fills up it becomes the old one and the old one is dropped,
 * so a person asked for in either generation stays (a cheap approximation of LRU).
 */
const MAX_ID_LENGTH = 200;

export class HashMemo {
  readonly #slots = new Map<string, number>();
  #young = new Map<string, Float64Array>();
  #old = new Map<string, Float64Array>();
  /** Hashes the young generation's rows can hold. */
  #youngCells = 0;

  constructor(
    readonly cellsPerGeneration = 1_000_000,
    readonly maxKeys = 4096,
  ) {}

  /** `flagHash(key, id)` (salt "") or `flagHash(key, id, "variant")`. */
  hash(key: string, id: string, variant: boolean): number {
    const salt = variant ? 'variant' : '';
    const slot = this.#slot(key);
    if (slot < 0 || id.length > MAX_ID_LENGTH) return flagHash(key, id, salt);
    const index = 2 * slot + (variant ? 1 : 0);
    let hashes = this.#hashesOf(id, index + 2);
    if (index >= hashes.length) {
      const grown = new Float64Array(Math.max(2 * hashes.length, index + 2)).fill(NaN);
      grown.set(hashes);
      this.#youngCells += grown.length - hashes.length;
      this.#young.set(id, (hashes = grown));
    }
    let value = hashes[index];
    if (Number.isNaN(value)) value = hashes[index] = flagHash(key, id, salt);
    return value;
  }

  /** How many ids are kept (both generations). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  #slot(key: string): number {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      if (this.#slots.size >= this.maxKeys) return -1;
      this.#slots.set(key, (slot = this.#slots.size));
    }
    return slot;
  }

  /**
   * The id's row, made young: moved over from the old generation, or new (NaN: not hashed yet),
   * sized for `length` hashes: rows grow with the slots an id uses, not with every key ever seen
   * (a deployment's projects share the slots).
   */
  #hashesOf(id: string, length: number): Float64Array {
    let hashes = this.#young.get(id);
    if (hashes !== undefined) return hashes;
    hashes = this.#old.get(id);
    if (hashes !== undefined) this.#old.delete(id);
    else hashes = new Float64Array(Math.max(8, length)).fill(NaN);
    if (this.#youngCells >= this.cellsPerGeneration) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngCells = 0;
    }
    this.#young.set(id, hashes);
    this.#youngCells += hashes.length;
    return hashes;
  }
}

/** The process's memo, shared by every project: the hash does not depend on the project. */
export const hashMemo = new HashMemo();

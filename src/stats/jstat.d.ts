/**
 * Minimal typing for the parts of jStat this project uses (no @types package
 * exists). jStat's own special functions stop after 100 continued-fraction
 * steps at 3e-7 tolerance, which is too coarse for large counts, so the
 * statistics implement their own; jStat serves as an independent sampler in
 * the tests.
 */
declare module 'jstat' {
  interface JStat {
    /** Replaces the uniform generator behind every sampler (default Math.random). */
    setRandom(fn: () => number): void;
    _random_fn: () => number;
    beta: {
      sample(alpha: number, beta: number): number;
    };
    gamma: {
      /** Shape and scale parametrisation. */
      sample(shape: number, scale: number): number;
    };
  }
  const jStat: JStat;
  export default jStat;
}

const HALF_LOG_2PI = 0.9189385332046728;

/**
 * Remainder of Stirling's series for ln Γ(y). Truncated after the y^-13 term,
 * which is below 1e-16 once y >= 10, so the series alone is double-precision.
 */
function stirlingCorrection(y: number): number {
  const inv = 1 / y;
  const inv2 = inv * inv;
  return (
    inv *
    (1 / 12 +
      inv2 *
        (-1 / 360 +
          inv2 *
            (1 / 1260 +
              inv2 * (-1 / 1680 + inv2 * (1 / 1188 + inv2 * (-691 / 360360 + inv2 * (1 / 156)))))))
  );
}

/** ln Γ(x) for x > 0, accurate to roughly 1e-15 relative. */
export function logGamma(x: number): number {
  if (Number.isNaN(x) || x < 0) return Number.NaN;
  if (x === 0) return Number.POSITIVE_INFINITY;
  // Shift small arguments up with Γ(y + 1) = y Γ(y) so Stirling's series can
  // be used where it converges to full precision.
  let y = x;
  let product = 1;
  while (y < 10) {
    product *= y;
    y += 1;
  }
  return (y - 0.5) * Math.log(y) - y + HALF_LOG_2PI + stirlingCorrection(y) - Math.log(product);
}

/** ln B(a, b). */
export function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/** ln C(n, k) for real 0 <= k <= n. */
export function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

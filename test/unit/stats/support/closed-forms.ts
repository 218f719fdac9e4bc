/**
 * Evan Miller's closed forms ("Formulas for Bayesian A/B Testing",
 * evanmiller.org/bayesian-ab-testing.html), written out independently of
 * src/stats so the numerical integration is checked against exact sums.
 * They need integer shape parameters, which the +1 priors guarantee.
 */

/** logFactorials[m] = ln(m!), extended on demand by a running sum of logs. */
const logFactorials: number[] = [0];

/** ln Γ(n) = ln((n − 1)!) for a positive integer n. */
function logFactorialGamma(n: number): number {
  for (let m = logFactorials.length; m < n; m++) logFactorials.push(logFactorials[m - 1] + Math.log(m));
  return logFactorials[n - 1];
}

function logBetaInt(a: number, b: number): number {
  return logFactorialGamma(a) + logFactorialGamma(b) - logFactorialGamma(a + b);
}

/** P(p_B > p_A) for p_A ~ Beta(aA, bA), p_B ~ Beta(aB, bB). */
export function betaProbabilityBBeatsA(aA: number, bA: number, aB: number, bB: number): number {
  let total = 0;
  for (let i = 0; i < aB; i++) {
    total += Math.exp(logBetaInt(aA + i, bA + bB) - Math.log(bB + i) - logBetaInt(1 + i, bB) - logBetaInt(aA, bA));
  }
  return total;
}

/** P(λ_B > λ_A) for λ ~ Gamma(shape k, rate r) (rate = exposure). */
export function gammaProbabilityBBeatsA(kA: number, rA: number, kB: number, rB: number): number {
  let total = 0;
  for (let i = 0; i < kB; i++) {
    total += Math.exp(
      i * Math.log(rB) + kA * Math.log(rA) - (i + kA) * Math.log(rA + rB) - Math.log(i + kA) - logBetaInt(i + 1, kA),
    );
  }
  return total;
}

export const ORDER = 10;

/** Legendre polynomials P_0..P_{degree} at x, by the three-term recurrence. */
function legendreValues(x: number, degree: number): number[] {
  const values = [1, x];
  for (let k = 1; k < degree; k++) values.push(((2 * k + 1) * x * values[k] - k * values[k - 1]) / (k + 1));
  return values.slice(0, degree + 1);
}

/** Nodes and weights on [-1, 1], found by Newton's method on P_n. */
function legendreRule(n: number): { nodes: number[]; weights: number[] } {
  const nodes = new Array<number>(n).fill(0);
  const weights = new Array<number>(n).fill(0);
  for (let i = 0; i < Math.ceil(n / 2); i++) {
    let z = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    let derivative = 1;
    for (let iteration = 0; iteration < 100; iteration++) {
      const p = legendreValues(z, n);
      derivative = (n * (z * p[n] - p[n - 1])) / (z * z - 1);
      const previous = z;
      z = previous - p[n] / derivative;
      if (Math.abs(z - previous) < 1e-16) break;
    }
    const weight = 2 / ((1 - z * z) * derivative * derivative);
    nodes[i] = -z;
    nodes[n - 1 - i] = z;
    weights[i] = weight;
    weights[n - 1 - i] = weight;
  }
  return { nodes, weights };
}

/**
 * S[m][j] = ∫_{-1}^{x_m} ℓ_j(t) dt for the Lagrange basis ℓ_j on the nodes, so
 * Σ_j S[m][j] f(x_j) integrates the interpolant of f up to every node at once.
 * Built from ℓ_j = w_j Σ_k (2k+1)/2 P_k(x_j) P_k and
 * ∫_{-1}^{x} P_k = (P_{k+1}(x) − P_{k−1}(x)) / (2k+1).
 */
function integrationMatrix(nodes: readonly number[], weights: readonly number[]): number[][] {
  const n = nodes.length;
  const at = nodes.map((x) => legendreValues(x, n));
  return nodes.map((_, m) =>
    nodes.map((__, j) => {
      let sum = (nodes[m] + 1) / 2;
      for (let k = 1; k < n; k++) sum += 0.5 * (at[m][k + 1] - at[m][k - 1]) * at[j][k];
      return weights[j] * sum;
    }),
  );
}

const RULE = legendreRule(ORDER);

/** 10-point Gauss–Legendre rule on [-1, 1] (exact for polynomials of degree 19). */
export const GL_NODES: readonly number[] = RULE.nodes;
export const GL_WEIGHTS: readonly number[] = RULE.weights;
export const GL_INTEGRATION: readonly (readonly number[])[] = integrationMatrix(RULE.nodes, RULE.weights);

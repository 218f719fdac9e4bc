import { describe, expect, it } from 'vitest';
import { expectedLoss } from '../../../src/stats/bayes/expected-loss';
import { betaPosterior } from '../../../src/stats/posterior/beta';
import { gammaPosterior } from '../../../src/stats/posterior/gamma';
import { betaSampler, simulateExpectedLoss } from './support/simulate';

const funnel = (success: number, failure: number) => betaPosterior(success + 1, failure + 1);

describe('expected loss', () => {
  it('is 1/6 for two uniform posteriors (E[(Y − X)⁺] for independent uniforms)', () => {
    expect(expectedLoss(funnel(0, 0), funnel(0, 0))).toBeCloseTo(1 / 6, 12);
  });

  it('matches a closed form for two exponentials', () => {
    // X ~ Exp(mean 1), Y ~ Exp(mean 2): E[(Y − X)⁺] = E[Y]·P(Y > X) = 2 · 2/3.
    expect(expectedLoss(gammaPosterior(1, 1), gammaPosterior(1, 2))).toBeCloseTo(4 / 3, 11);
  });

  it("reproduces PostHog's expected losses (test_experiment_result.py)", () => {
    expect(Math.abs(expectedLoss(funnel(100, 10), funnel(100, 18)) - 0.0016)).toBeLessThan(5e-4);
    expect(Math.abs(expectedLoss(funnel(286, 2014), funnel(267, 2031)) - 0.001)).toBeLessThan(5e-4);
    // Best test variant C (100/46) chosen over control (130/65): HIGH_LOSS case.
    expect(Math.abs(expectedLoss(funnel(100, 46), funnel(130, 65)) - 0.012)).toBeLessThan(0.005);
  });

  it('agrees with a seeded simulation', () => {
    const exact = expectedLoss(funnel(110, 52), funnel(130, 65));
    const simulated = simulateExpectedLoss(betaSampler(111, 53), betaSampler(131, 66), 20_000, 11);
    expect(Math.abs(exact - simulated)).toBeLessThan(0.001);
  });

  it('is essentially zero for a clear winner', () => {
    expect(expectedLoss(funnel(900, 100), funnel(100, 900))).toBeLessThan(1e-15);
  });
});

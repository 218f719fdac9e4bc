/** A statistic cannot be computed from these inputs (PostHog's StatisticError). */
export class StatisticError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatisticError';
  }
}

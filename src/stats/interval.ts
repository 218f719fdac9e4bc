/** A two-sided interval [low, high]. */
export type Interval = [number, number];

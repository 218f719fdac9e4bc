import type { Projection } from './projection';
import { accessProjection } from './access';

export * from './projection';
export { accessProjection } from './access';
export { accessQueries, type AccessQueries } from './access-queries';

/** Every read model of the product, in the order the runner applies them. */
export const allProjections: readonly Projection[] = [accessProjection];

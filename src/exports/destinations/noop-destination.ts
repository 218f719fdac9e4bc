import { z } from 'zod';
import type { Destination } from './destination';

const noopConfigSchema = z.looseObject({});

/** Counts records and writes nothing: for testing schedules and runs end to end. */
export const noopDestination: Destination<Record<string, unknown>> = {
  type: 'NoOp',
  configSchema: noopConfigSchema,
  secretFields: [],
  async write(_config, ctx, batches) {
    let records = 0;
    for await (const batch of batches) records += batch.length;
    ctx.log('INFO', `NoOp export counted ${records} records`);
    return { recordsCompleted: records };
  },
};

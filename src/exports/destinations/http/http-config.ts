import { z } from 'zod';
import { requiredString } from '../config-schema';

export const httpConfigSchema = z.object({
  /** The receiving `/batch/` endpoint, e.g. another instance's `https://host/batch/`. */
  url: z.url({ protocol: /^https?$/, error: 'Must be an http(s) URL.' }),
  /** The receiving project's API key, sent as `api_key`. */
  token: requiredString(),
});

export type HttpConfig = z.output<typeof httpConfigSchema>;

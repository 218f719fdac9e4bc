import { z } from 'zod';

const Props = z.record(z.string(), z.unknown());

/** The body of /decide and /flags after decoding (compat §3); unknown fields are ignored. */
export const FlagRequest = z.looseObject({
  api_key: z.string().optional(),
  token: z.string().optional(),
  $token: z.string().optional(),
  distinct_id: z.union([z.string(), z.number()]).transform(String).optional(),
  groups: z.record(z.string(), z.union([z.string(), z.number()]).transform(String)).nullish(),
  person_properties: Props.nullish(),
  group_properties: z.record(z.string(), Props).nullish(),
  $anon_distinct_id: z.union([z.string(), z.number()]).transform(String).nullish(),
  geoip_disable: z.boolean().nullish(),
  disable_flags: z.boolean().nullish(),
  flag_keys_to_evaluate: z.array(z.string()).nullish(),
});
export type FlagRequest = z.infer<typeof FlagRequest>;

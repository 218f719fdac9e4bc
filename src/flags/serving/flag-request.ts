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

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optional = (value: unknown, type: 'string' | 'boolean') => value === undefined || typeof value === type;
const nullish = (value: unknown, type: 'string' | 'boolean') => value === null || optional(value, type);
const allValues = (record: Record<string, unknown>, test: (value: unknown) => boolean) => {
  for (const key in record) if (!test(record[key])) return false;
  return true;
};

/**
 * The body itself when every field `FlagRequest` reads is absent or already of the type it
 * yields, so that parsing would only copy it (what SDKs send); otherwise undefined. Checked by
 * hand because the zod parse, which copies every record, was a visible part of a `/flags` request's
 * CPU profile. The result is read, never changed.
 */
function alreadyParsed(payload: unknown): FlagRequest | undefined {
  if (!isRecord(payload) || Object.getPrototypeOf(payload) !== Object.prototype) return undefined;
  const { api_key, token, $token, distinct_id, groups, person_properties, group_properties, $anon_distinct_id, geoip_disable, disable_flags, flag_keys_to_evaluate } = payload;
  const plain =
    optional(api_key, 'string') &&
    optional(token, 'string') &&
    optional($token, 'string') &&
    optional(distinct_id, 'string') &&
    (groups === undefined || groups === null || (isRecord(groups) && allValues(groups, (v) => typeof v === 'string'))) &&
    (person_properties === undefined || person_properties === null || isRecord(person_properties)) &&
    (group_properties === undefined || group_properties === null || (isRecord(group_properties) && allValues(group_properties, isRecord))) &&
    nullish($anon_distinct_id, 'string') &&
    nullish(geoip_disable, 'boolean') &&
    nullish(disable_flags, 'boolean') &&
    (flag_keys_to_evaluate === undefined || flag_keys_to_evaluate === null || (Array.isArray(flag_keys_to_evaluate) && flag_keys_to_evaluate.every((k) => typeof k === 'string')));
  // Checked field by field above: each has the type FlagRequest gives it.
  return plain ? (payload as FlagRequest) : undefined;
}

/** `FlagRequest.safeParse`, without the copy when the body needs no conversion. */
export function parseFlagRequest(payload: unknown): ReturnType<typeof FlagRequest.safeParse> {
  const data = alreadyParsed(payload);
  return data !== undefined ? { success: true, data } : FlagRequest.safeParse(payload);
}

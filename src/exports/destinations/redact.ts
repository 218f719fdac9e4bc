import type { Destination } from './destination';

/**
 * Secret fields per destination type, including types this service cannot write to yet, so a
 * stored config of any known type is never echoed with its credentials.
 */
const KNOWN_SECRET_FIELDS: Readonly<Record<string, readonly string[]>> = {
  S3: ['aws_access_key_id', 'aws_secret_access_key'],
  Postgres: ['user', 'password'],
  Redshift: ['user', 'password', 'aws_access_key_id', 'aws_secret_access_key'],
  HTTP: ['token'],
  BigQuery: ['private_key', 'private_key_id', 'client_email', 'token_uri'],
  Snowflake: ['user', 'password', 'private_key', 'private_key_passphrase'],
  Databricks: ['client_id', 'client_secret'],
  AzureBlob: ['connection_string'],
};

/** For an unknown type, drop anything that looks like a credential rather than leak it. */
const FALLBACK_SECRET_FIELDS = [
  'password', 'token', 'secret', 'private_key', 'private_key_passphrase', 'aws_access_key_id',
  'aws_secret_access_key', 'client_secret', 'connection_string', 'api_key',
];

type Registry = Readonly<Record<string, Pick<Destination<unknown>, 'secretFields'>>>;

export function secretFieldsOf(type: string, registry: Registry = {}): readonly string[] {
  return registry[type]?.secretFields ?? KNOWN_SECRET_FIELDS[type] ?? FALLBACK_SECRET_FIELDS;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of `config` without its secret fields, as API responses and logs must show it. */
export function redactConfig(type: string, config: unknown, registry?: Registry): Record<string, unknown> | null {
  if (!isRecord(config)) return null;
  const secrets = new Set(secretFieldsOf(type, registry));
  return Object.fromEntries(Object.entries(config).filter(([key]) => !secrets.has(key)));
}

/**
 * PATCH semantics for `destination.config`: top-level keys of the patch replace stored ones and
 * absent keys are kept — which is how secrets survive an update, since clients never see them.
 * An explicit `undefined` is treated as absent.
 */
export function mergeConfig(old: unknown, patch: unknown): Record<string, unknown> {
  const merged: Record<string, unknown> = isRecord(old) ? { ...old } : {};
  if (!isRecord(patch)) return merged;
  for (const [key, value] of Object.entries(patch)) if (value !== undefined) merged[key] = value;
  return merged;
}

/** Secret values shorter than this are left alone: masking "a" would garble every message. */
const MIN_SCRUB_LENGTH = 3;

/** Replaces every secret value of `config` found in `message` with `***`. */
export function scrubSecrets(message: string, type: string, config: unknown, registry?: Registry): string {
  if (!isRecord(config)) return message;
  let out = message;
  for (const field of secretFieldsOf(type, registry)) {
    const value = config[field];
    if (typeof value === 'string' && value.length >= MIN_SCRUB_LENGTH) out = out.split(value).join('***');
  }
  return out;
}

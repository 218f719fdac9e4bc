import { validationError } from '../../errors';
import { PathRefusedError, TargetRefusedError, type DestinationPolicy } from '../policy';
import { validateWith, type ConfigValidation } from './config-schema';
import type { Destination } from './destination';
import { fileDestination } from './file/file-destination';
import { guarded } from './guard';
import { httpDestination } from './http/http-destination';
import { noopDestination } from './noop-destination';
import { postgresDestination } from './postgres/postgres-destination';
import { redactConfig as redactWith } from './redact';
import { s3Destination } from './s3/s3-destination';

/** Every destination type this service can write to, keyed by `destination.type`. */
export const destinations: Readonly<Record<string, Destination<unknown>>> = {
  S3: guarded(s3Destination),
  Postgres: guarded(postgresDestination),
  HTTP: guarded(httpDestination),
  File: guarded(fileDestination),
  NoOp: guarded(noopDestination),
};

export const DESTINATION_TYPES = Object.keys(destinations);

export function getDestination(type: string): Destination<unknown> | undefined {
  return Object.hasOwn(destinations, type) ? destinations[type] : undefined;
}

/** Checks `destination.config` for `type`; messages name the offending field. */
export function validateDestinationConfig(type: string, config: unknown): ConfigValidation<unknown> {
  const destination = getDestination(type);
  if (!destination) {
    const message = `Unsupported destination type '${type}'; supported: ${DESTINATION_TYPES.join(', ')}.`;
    return { ok: false, issues: [{ field: '', message }], message };
  }
  return validateWith(destination.configSchema, config);
}

/** The validated config (defaults applied), or a 400-style validation DomainError on `destination`. */
export function parseDestinationConfig(type: string, config: unknown): unknown {
  const result = validateDestinationConfig(type, config);
  if (result.ok) return result.config;
  const prefix = getDestination(type) ? `Invalid ${type} destination config: ` : '';
  throw validationError(prefix + result.message, 'destination');
}

/** `config` without the secret fields of `type`, for responses and logs. */
export function redactConfig(type: string, config: unknown): Record<string, unknown> | null {
  return redactWith(type, config, destinations);
}

/**
 * Where a validated config points, checked against the policy (create and PATCH): a File path out
 * of the export root or a host on a private network is a 400 on `destination`.
 */
export async function checkDestinationTarget(type: string, config: unknown, policy: DestinationPolicy): Promise<void> {
  const destination = getDestination(type);
  try {
    await destination?.checkTarget?.(config, policy);
  } catch (err) {
    if (err instanceof PathRefusedError || err instanceof TargetRefusedError) {
      throw validationError(`Invalid ${type} destination config: ${err.message}.`, 'destination');
    }
    throw err;
  }
}

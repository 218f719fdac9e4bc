import { validateWith } from './config-schema';
import type { Destination, LogLevel, RecordBatches } from './destination';
import { DestinationError, nonRetryableError } from './destination';
import { describeError, isTransientNetworkError } from './network-errors';
import { PathRefusedError, TargetRefusedError } from '../policy';
import { scrubSecrets } from './redact';

/** Marks errors raised by the caller's record source as they pass through to the destination. */
async function* marked<T>(items: AsyncIterable<T>, seen: WeakSet<object>): AsyncGenerator<T> {
  try {
    yield* items;
  } catch (err) {
    if (typeof err === 'object' && err !== null) seen.add(err);
    throw err;
  }
}

/** The batches, and their encoded form if offered, with the source's errors marked. */
function tracked(batches: RecordBatches, seen: WeakSet<object>): RecordBatches {
  const encoded = batches.encoded;
  return Object.assign(marked(batches, seen), {
    encoded:
      encoded &&
      ((format: 'JSONLines') => {
        const chunks = encoded.call(batches, format);
        return chunks && marked(chunks, seen);
      }),
  });
}

/** The caller's own error, if `err` is one or wraps one (destinations keep originals as `cause`). */
function sourceErrorIn(err: unknown, seen: WeakSet<object>): unknown {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (seen.has(e)) return e;
  }
  return undefined;
}

/** A refusal of the export policy (a path out of the root, a private address), wherever it is wrapped. */
export function policyRefusalIn(err: unknown): Error | undefined {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof PathRefusedError || e instanceof TargetRefusedError) return e;
  }
  return undefined;
}

/**
 * What every registered destination gets: secret values are masked in every log line and error
 * message, and whatever escapes `write` leaves as a DestinationError. The original error is
 * deliberately not kept as `cause` — driver errors quote user names and connection strings.
 * Errors thrown by `batches` itself are the caller's, and are rethrown unchanged. The config is
 * (re)validated first, so callers may pass a stored config as it is, defaults not yet applied.
 */
export function guarded<C>(destination: Destination<C>): Destination<C> {
  const registry = { [destination.type]: destination };
  return {
    ...destination,
    async write(config, ctx, batches) {
      const scrub = (message: string) => scrubSecrets(message, destination.type, config, registry);
      const log = (level: LogLevel, message: string) => ctx.log(level, scrub(message));
      const valid = validateWith(destination.configSchema, config);
      if (!valid.ok) throw nonRetryableError(scrub(`Invalid ${destination.type} destination config: ${valid.message}`));
      const seen = new WeakSet<object>();
      try {
        return await destination.write(valid.config, { ...ctx, log }, tracked(batches, seen));
      } catch (err) {
        const fromSource = sourceErrorIn(err, seen);
        if (fromSource !== undefined) throw fromSource;
        const refused = policyRefusalIn(err);
        if (refused) throw new DestinationError(scrub(`${destination.type} export refused: ${refused.message}`), false);
        const retryable = err instanceof DestinationError ? err.retryable : isTransientNetworkError(err);
        const message = err instanceof DestinationError ? err.message : `${destination.type} export failed: ${describeError(err)}`;
        throw new DestinationError(scrub(message), retryable);
      }
    },
  };
}

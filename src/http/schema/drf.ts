import { z } from 'zod';
import { DomainError, validationError } from '../../errors';

/**
 * Body fields read as Django REST framework reads them, with its messages and codes, so the zod
 * schema of a route is where the field is checked and its answer is PostHog's: a reader refuses by
 * throwing a validation DomainError (`refuse`, or a domain check such as the flag key's); the
 * refusal becomes a custom issue carrying that code, and the error handler answers it with the
 * issue's path as `attr` (see provider.ts). The OpenAPI document shows `documented`, the shape the
 * reader accepts.
 */
export function drf<T>(documented: z.ZodType, read: (value: unknown) => T, description?: string) {
  const { $schema: _, ...json } = z.toJSONSchema(documented, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return z
    .unknown()
    .transform((value, ctx): T => {
      try {
        return read(value);
      } catch (err) {
        if (!(err instanceof DomainError) || err.kind !== 'validation') throw err;
        return refusalIssue(ctx, err);
      }
    })
    .meta({ ...json, ...(description === undefined ? {} : { description }) });
}

/** A refusal of the field being read; `attr` is where the field sits in the body. */
export const refuse = (message: string, code = 'invalid_input'): never => {
  throw validationError(message, null, code);
};

/** A refusal as the issue the error handler answers with (`path`: a field other than the one read). */
export function refusalIssue(ctx: z.RefinementCtx, err: DomainError, path?: string[]) {
  ctx.addIssue({ code: 'custom', message: err.message, params: { drfCode: err.code ?? 'invalid_input' }, ...(path ? { path } : {}) });
  return z.NEVER;
}

/** The absent case of a required field (an optional one is `.optional()` and never read absent). */
const present = (value: unknown): unknown => (value === undefined ? refuse('This field is required.', 'required') : value);
const notNull = (value: unknown): unknown => (value === null ? refuse('This field may not be null.', 'null') : value);

/**
 * Django REST framework's CharField refuses NUL in every string field (ProhibitNullCharactersValidator):
 * a NUL is no part of a name, and it cuts C strings short in whatever reads the stored value later.
 * Every text field here, and the names read by their own rules (batch exports, flags), call this.
 */
export const refuseNulCharacters = (value: string, code = 'null_characters_not_allowed'): string =>
  value.includes('\0') ? refuse('Null characters are not allowed.', code) : value;

/** A string: not blank unless `blank`, at most `maxLength` characters, no NUL. */
export const text = (options: { blank?: boolean; maxLength?: number } = {}) =>
  drf(options.maxLength === undefined ? z.string() : z.string().max(options.maxLength), (raw) => {
    const v = notNull(present(raw));
    if (typeof v !== 'string') return refuse('Not a valid string.', 'invalid');
    refuseNulCharacters(v);
    if (!options.blank && v.trim() === '') return refuse('This field may not be blank.', 'blank');
    if (options.maxLength !== undefined && v.length > options.maxLength) return refuse(`Ensure this field has no more than ${options.maxLength} characters.`, 'max_length');
    return v;
  });

/** One of `choices`. */
export const choice = <T extends string>(choices: readonly [T, ...T[]]) =>
  drf(z.enum(choices), (raw): T => {
    const v = present(raw);
    return typeof v === 'string' && (choices as readonly string[]).includes(v) ? (v as T) : refuse(`"${String(v)}" is not a valid choice.`, 'invalid_choice');
  });

/** One of `choices`, or null. */
export const nullableChoice = <T extends string>(choices: readonly [T, ...T[]]) =>
  drf(z.enum(choices).nullable(), (raw): T | null => {
    const v = present(raw);
    if (v === null) return null;
    return typeof v === 'string' && (choices as readonly string[]).includes(v) ? (v as T) : refuse(`"${String(v)}" is not a valid choice.`, 'invalid_choice');
  });

export const bool = (description?: string) =>
  drf(
    z.boolean(),
    (raw) => {
      const v = present(raw);
      return typeof v === 'boolean' ? v : refuse('Must be a valid boolean.', 'invalid');
    },
    description,
  );

/** An integer (at least `min`), or null. */
export const integer = (options: { min?: number; description?: string } = {}) =>
  drf(
    z.number().int().nullable(),
    (raw): number | null => {
      const v = present(raw);
      if (v === null) return null;
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) return refuse('A valid integer is required.', 'invalid');
      if (options.min !== undefined && v < options.min) return refuse(`Ensure this value is greater than or equal to ${options.min}.`, 'min_value');
      return v;
    },
    options.description,
  );

/** An ISO 8601 instant, normalised to toISOString(); or null. */
export const instant = (description?: string) =>
  drf(
    z.string().nullable(),
    (raw): string | null => {
      const v = present(raw);
      if (v === null) return null;
      const ms = typeof v === 'string' && /^\d{4}-\d\d-\d\d/.test(v) ? Date.parse(v) : Number.NaN;
      if (Number.isNaN(ms)) return refuse('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', 'invalid');
      return new Date(ms).toISOString();
    },
    description,
  );

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON object (keys are the client's own), or null. */
export const jsonObjectField = (description?: string) =>
  drf(
    z.record(z.string(), z.unknown()).nullable(),
    (raw): Record<string, unknown> | null => {
      const v = present(raw);
      if (v === null) return null;
      return isObject(v) ? v : refuse('Expected a JSON object.', 'invalid');
    },
    description,
  );

/** A JSON object that may not be null. */
export const requiredObject = () =>
  drf(z.record(z.string(), z.unknown()), (raw): Record<string, unknown> => {
    const v = notNull(present(raw));
    return isObject(v) ? v : refuse('Expected a JSON object.', 'invalid');
  });

/**
 * The fields a PATCH gives: "not given" and "given" must stay distinct (null clears a value), so
 * only the undefined ones are dropped.
 */
export function given<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

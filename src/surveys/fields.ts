import { validationError } from '../errors';

/** Field readers in DRF's words, shared by the survey and early access inputs. */
export type Body = Record<string, unknown>;

export const required = (attr: string) => validationError('This field is required.', attr, 'required');

export function text(body: Body, attr: string, options: { required?: boolean; blank?: boolean; nullable?: boolean; maxLength?: number } = {}): string | null | undefined {
  const v = body[attr];
  if (v === undefined) {
    if (options.required) throw required(attr);
    return undefined;
  }
  if (v === null) {
    if (options.nullable) return null;
    throw validationError('This field may not be null.', attr, 'null');
  }
  if (typeof v !== 'string') throw validationError('Not a valid string.', attr, 'invalid');
  if (!options.blank && v.trim() === '') throw validationError('This field may not be blank.', attr, 'blank');
  if (options.maxLength !== undefined && v.length > options.maxLength)
    throw validationError(`Ensure this field has no more than ${options.maxLength} characters.`, attr, 'max_length');
  return v;
}

export function choice<T extends string>(body: Body, attr: string, choices: readonly T[], options: { required?: boolean; nullable?: boolean } = {}): T | null | undefined {
  const v = body[attr];
  if (v === undefined) {
    if (options.required) throw required(attr);
    return undefined;
  }
  if (v === null && options.nullable) return null;
  if (typeof v !== 'string' || !choices.includes(v as T)) throw validationError(`"${String(v)}" is not a valid choice.`, attr, 'invalid_choice');
  return v as T;
}

export function bool(body: Body, attr: string): boolean | undefined {
  const v = body[attr];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw validationError('Must be a valid boolean.', attr, 'invalid');
  return v;
}

export function integer(body: Body, attr: string, options: { min?: number } = {}): number | null | undefined {
  const v = body[attr];
  if (v === undefined || v === null) return v;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw validationError('A valid integer is required.', attr, 'invalid');
  if (options.min !== undefined && v < options.min) throw validationError(`Ensure this value is greater than or equal to ${options.min}.`, attr, 'min_value');
  return v;
}

export function instant(body: Body, attr: string): string | null | undefined {
  const v = body[attr];
  if (v === undefined || v === null) return v;
  const ms = typeof v === 'string' && /^\d{4}-\d\d-\d\d/.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(ms))
    throw validationError('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', attr, 'invalid');
  return new Date(ms).toISOString();
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function object(body: Body, attr: string, options: { nullable?: boolean } = {}): Record<string, unknown> | null | undefined {
  const v = body[attr];
  if (v === undefined) return undefined;
  if (v === null) {
    if (options.nullable) return null;
    throw validationError('This field may not be null.', attr, 'null');
  }
  if (!isObject(v)) throw validationError('Expected a JSON object.', attr, 'invalid');
  return v;
}

/** Drops the keys whose value is undefined (absent from the body). */
export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

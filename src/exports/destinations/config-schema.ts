import { z } from 'zod';

/** Forms often send '' for "not set"; treat it like null. */
export const emptyToNull = (value: unknown): unknown => (value === '' ? null : value);

/** A null value falls back to the field's default, like a missing one. */
export const nullToUndefined = (value: unknown): unknown => (value === null ? undefined : value);

/** Same for null and ''. */
export const blankToUndefined = (value: unknown): unknown => (value === null || value === '' ? undefined : value);

/** Form posts send numbers as strings; accept "10" where 10 is meant. */
export const numericStringToNumber = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;

export const requiredString = () => z.string().trim().min(1, 'This field may not be blank.');

/** An optional string that is null when absent or blank. */
export const optionalString = () =>
  z.preprocess(emptyToNull, z.string().nullish()).transform((value) => value ?? null);

export const eventList = () =>
  z
    .preprocess(emptyToNull, z.array(z.string(), { error: 'Must be a list of event names.' }).nullish())
    .transform((value) => value ?? []);

export interface ConfigIssue {
  /** Dotted path inside `destination.config`, e.g. `bucket_name`; empty for the whole object. */
  field: string;
  message: string;
}

export type ConfigValidation<C> = { ok: true; config: C } | { ok: false; issues: ConfigIssue[]; message: string };

/** Django REST framework's wording for missing fields, which PostHog clients already show. */
const requiredMessage = (issue: { code: string; input?: unknown }): string | undefined =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'This field is required.' : undefined;

export function validateWith<C>(schema: z.ZodType<C>, config: unknown): ConfigValidation<C> {
  const parsed = schema.safeParse(config ?? {}, { error: requiredMessage });
  if (parsed.success) return { ok: true, config: parsed.data };
  const issues = parsed.error.issues.map((issue) => ({ field: issue.path.map(String).join('.'), message: issue.message }));
  const message = issues
    .map(({ field, message }) => (field ? `${field}: ${message}` : message).replace(/\.$/, ''))
    .join('; ');
  return { ok: false, issues, message };
}

import type { z } from 'zod';
import { invalidInput } from './errors';

/** Parses a request part with a zod schema; the first issue becomes a 400 naming its field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const attr = issue.path.length ? issue.path.map(String).join('.') : null;
  throw invalidInput(issue.message, attr);
}

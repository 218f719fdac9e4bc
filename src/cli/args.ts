import { parseArgs } from 'node:util';

export class UsageError extends Error {
  override name = 'UsageError';
}

export const list = (value: string | undefined) =>
  value
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** parseArgs with the CLI's shared flags; unknown flags are a usage error, not a crash. */
export function parse<O extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

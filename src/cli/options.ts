import { statSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { UsageError } from './errors';

/** Option parsers: commander reports a refused value as `error: option '--x <n>' argument 'y' is invalid. <reason>`. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('Expected a positive integer.');
  return n;
}

export function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function intList(value: string): number[] {
  return list(value).map(positiveInt);
}

/** A path argument (UsageError: `error: <path>: no such file`, not commander's wordier argument message) that must name a readable file: checked before anything is opened. */
export function existingFile(path: string): string {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new UsageError(`${path}: no such file`);
  if (stat.isDirectory()) throw new UsageError(`${path}: is a directory`);
  return path;
}

/** A directory to write into: absent (created later) or a directory. */
export function directoryPath(path: string): string {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) throw new UsageError(`${path}: not a directory`);
  return path;
}

/** A log position (a whole number; positions are opaque, compared, never computed). */
export function logPosition(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('Expected a log position (a whole number).');
  return n;
}

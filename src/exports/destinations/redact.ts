import { destinationSecretFields } from '../../../streams';
import type { Destination } from './destination';

type Registry = Readonly<Record<string, Pick<Destination<unknown>, 'secretFields'>>>;

export function secretFieldsOf(type: string, registry: Registry = {}): readonly string[] {
  return registry[type]?.secretFields ?? destinationSecretFields(type);
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

/**
 * Values this long or longer are masked wherever they appear; shorter ones only as a whole token
 * (between characters that are not letters, digits or `_`), so a one-letter password is masked
 * in "password a rejected" but "a" is not cut out of every word.
 */
const MIN_SUBSTRING_LENGTH = 4;

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/**
 * The forms a secret takes in messages: as is, JSON-escaped, URL-encoded (`%20` and form `+`),
 * and base64 / base64url (padded and not). Base64 is masked for the value alone and for
 * `user:password` pairs, as HTTP Basic authentication carries them.
 */
export function secretForms(value: string, user?: string): string[] {
  const forms = new Set<string>([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]);
  for (const text of user === undefined ? [value] : [value, `${user}:${value}`]) {
    forms.add(b64(text));
    forms.add(b64(text).replace(/=+$/, ''));
    forms.add(b64url(text));
  }
  forms.delete('');
  return [...forms];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replaces every secret value of `config`, in each of its encoded forms, found in `message` with `***`. */
export function scrubSecrets(message: string, type: string, config: unknown, registry?: Registry): string {
  if (!isRecord(config)) return message;
  const user = typeof config.user === 'string' && config.user !== '' ? config.user : undefined;
  const forms = new Set<string>();
  for (const field of secretFieldsOf(type, registry)) {
    const value = config[field];
    if (typeof value === 'string' && value !== '') for (const form of secretForms(value, field === 'user' ? undefined : user)) forms.add(form);
  }
  // Longest first: a value's longer encoding is masked whole, not around a shorter form inside it.
  let out = message;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    out = form.length >= MIN_SUBSTRING_LENGTH
      ? out.split(form).join('***')
      : out.replace(new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(form)}(?![A-Za-z0-9_])`, 'g'), '***');
  }
  return out;
}

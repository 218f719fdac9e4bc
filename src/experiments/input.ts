import { DomainError, validationError } from '../errors';
import { validateFlagKey } from '../flags/management';

/** The writable fields of an experiment, parsed (dates normalised to toISOString()). */
export interface ExperimentFields {
  name: string;
  description: string;
  startDate: string | null;
  endDate: string | null;
  parameters: unknown;
  secondaryMetrics: unknown;
  filters: unknown;
  archived: boolean;
}

export interface CreateExperimentInput extends ExperimentFields {
  featureFlagKey: string;
}

export type UpdateExperimentInput = Partial<ExperimentFields>;

type Body = Record<string, unknown>;

/** compat §4: what PATCH may change. */
const UPDATABLE = ['name', 'description', 'start_date', 'end_date', 'filters', 'parameters', 'archived', 'secondary_metrics'];
/** Fields of the response shape a client may send back unchanged; ignored, as DRF ignores read-only fields. */
const READ_ONLY = ['id', 'feature_flag', 'exposure_cohort', 'created_by', 'created_at', 'updated_at', 'status'];

const required = (attr: string) => validationError('This field is required.', attr, 'required');

function text(body: Body, attr: string, options: { required?: boolean; blank?: boolean; maxLength?: number } = {}): string | undefined {
  const v = body[attr];
  if (v === undefined) {
    if (options.required) throw required(attr);
    return undefined;
  }
  if (v === null) throw validationError('This field may not be null.', attr, 'null');
  if (typeof v !== 'string') throw validationError('Not a valid string.', attr, 'invalid');
  if (!options.blank && v.trim() === '') throw validationError('This field may not be blank.', attr, 'blank');
  if (options.maxLength !== undefined && v.length > options.maxLength)
    throw validationError(`Ensure this field has no more than ${options.maxLength} characters.`, attr, 'max_length');
  return v;
}

function instant(body: Body, attr: string): string | null | undefined {
  const v = body[attr];
  if (v === undefined || v === null) return v;
  const ms = typeof v === 'string' && /^\d{4}-\d\d-\d\d/.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(ms))
    throw validationError(
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      attr,
      'invalid',
    );
  return new Date(ms).toISOString();
}

function json(body: Body, attr: string, kind: 'object' | 'array'): unknown {
  const v = body[attr];
  if (v === undefined || v === null) return v;
  const ok = kind === 'array' ? Array.isArray(v) : typeof v === 'object' && !Array.isArray(v);
  if (!ok) throw validationError(kind === 'array' ? 'Expected a list of metrics.' : 'Expected a JSON object.', attr, 'invalid');
  return v;
}

function bool(body: Body, attr: string): boolean | undefined {
  const v = body[attr];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw validationError('Must be a valid boolean.', attr, 'invalid');
  return v;
}

/** PostHog refuses global property filters on an experiment's metric filters. */
function checkFilters(filters: unknown) {
  const properties = (filters as Record<string, unknown> | null | undefined)?.properties;
  if (Array.isArray(properties) ? properties.length > 0 : properties !== undefined && properties !== null && typeof properties === 'object')
    throw validationError('Experiments do not support global filter properties', 'filters');
}

/** The flag key, with errors naming the experiment's field rather than the flag's. */
function flagKey(body: Body): string {
  try {
    return validateFlagKey(body.feature_flag_key);
  } catch (err) {
    if (err instanceof DomainError) throw new DomainError(err.kind, err.message, 'feature_flag_key', err.message.includes('required') ? 'required' : err.code);
    throw err;
  }
}

/** An experiment cannot end before it starts (equal instants are allowed); checked on the result of a write. */
function checkDateOrder(startDate: string | null, endDate: string | null) {
  if (startDate !== null && endDate !== null && Date.parse(endDate) < Date.parse(startDate))
    throw validationError('The end date must not be before the start date.', 'end_date', 'invalid');
}

export function parseCreate(body: Body): CreateExperimentInput {
  const filters = json(body, 'filters', 'object') ?? {};
  checkFilters(filters);
  const startDate = instant(body, 'start_date') ?? null;
  const endDate = instant(body, 'end_date') ?? null;
  checkDateOrder(startDate, endDate);
  return {
    name: text(body, 'name', { required: true, maxLength: 400 })!,
    description: text(body, 'description', { blank: true }) ?? '',
    startDate,
    endDate,
    featureFlagKey: flagKey(body),
    parameters: json(body, 'parameters', 'object') ?? null,
    secondaryMetrics: json(body, 'secondary_metrics', 'array') ?? [],
    filters,
    archived: bool(body, 'archived') ?? false,
  };
}

/**
 * PATCH: only the compat §4 keys; `feature_flag_key` only when unchanged; read-only fields of the
 * response shape are ignored; anything else is named in PostHog's "Can't update keys" error.
 * The dates are checked together with the stored ones they will sit beside.
 */
export function parseUpdate(
  body: Body,
  currentFlagKey: string,
  current: { startDate: string | null; endDate: string | null } = { startDate: null, endDate: null },
): UpdateExperimentInput {
  const refused = Object.keys(body)
    .filter((k) => !UPDATABLE.includes(k) && !READ_ONLY.includes(k))
    .filter((k) => !(k === 'feature_flag_key' && body[k] === currentFlagKey))
    .sort();
  if (refused.length) throw validationError(`Can't update keys: ${refused.join(', ')} on Experiment`);
  const out: UpdateExperimentInput = {
    name: text(body, 'name', { maxLength: 400 }),
    description: text(body, 'description', { blank: true }),
    startDate: instant(body, 'start_date'),
    endDate: instant(body, 'end_date'),
    parameters: json(body, 'parameters', 'object'),
    secondaryMetrics: json(body, 'secondary_metrics', 'array'),
    filters: json(body, 'filters', 'object'),
    archived: bool(body, 'archived'),
  };
  if (out.filters !== undefined) checkFilters(out.filters);
  // Only a PATCH that moves a date is checked, so an older experiment stored the wrong way round stays editable.
  if (out.startDate !== undefined || out.endDate !== undefined)
    checkDateOrder(out.startDate === undefined ? current.startDate : out.startDate, out.endDate === undefined ? current.endDate : out.endDate);
  // "Not given" and "given" must stay distinct (null clears a date), so drop only the undefined.
  for (const k of Object.keys(out) as (keyof UpdateExperimentInput)[]) if (out[k] === undefined) delete out[k];
  return out;
}

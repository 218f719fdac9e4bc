import { EARLY_ACCESS_STAGES, type EarlyAccessFields, type EarlyAccessStage } from '../../streams';
import { validationError } from '../errors';
import { bool, choice, defined, integer, isObject, object, text, type Body } from '../surveys/fields';

export interface EarlyAccessCreate {
  fields: EarlyAccessFields;
  /** An existing flag to own instead of creating one. */
  featureFlagId: number | null;
}

export interface EarlyAccessUpdate {
  changes: Partial<EarlyAccessFields>;
  /** Going to general availability with `rollout_to_all`: release the flag to everyone. */
  rolloutToAll: boolean;
}

function assignee(body: Body): EarlyAccessFields['assignee'] | undefined {
  const v = body.assignee;
  if (v === undefined || v === null) return v;
  if (!isObject(v) || (v.type !== 'user' && v.type !== 'role') || typeof v.name !== 'string')
    throw validationError('assignee must be null or {type: "user" | "role", name}.', 'assignee', 'invalid');
  return { type: v.type, name: v.name };
}

function fieldsOf(body: Body): Partial<EarlyAccessFields> {
  return defined({
    name: text(body, 'name', { maxLength: 200 }) as string | undefined,
    description: text(body, 'description', { blank: true }) as string | undefined,
    stage: choice(body, 'stage', EARLY_ACCESS_STAGES) as EarlyAccessStage | undefined,
    documentation_url: text(body, 'documentation_url', { blank: true }) as string | undefined,
    payload: object(body, 'payload') as Record<string, unknown> | undefined,
    assignee: assignee(body),
  });
}

export function parseEarlyAccessCreate(body: Body): EarlyAccessCreate {
  text(body, 'name', { required: true });
  choice(body, 'stage', EARLY_ACCESS_STAGES, { required: true });
  const url = body.documentation_url;
  if (typeof url === 'string' && url !== '' && !/^https?:\/\/\S+$/.test(url)) throw validationError('Enter a valid URL.', 'documentation_url', 'invalid');
  const fields = { description: '', documentation_url: '', payload: {}, assignee: null, ...fieldsOf(body) } as EarlyAccessFields;
  return { fields, featureFlagId: integer(body, 'feature_flag_id') ?? null };
}

export function parseEarlyAccessUpdate(body: Body): EarlyAccessUpdate {
  const url = body.documentation_url;
  if (typeof url === 'string' && url !== '' && !/^https?:\/\/\S+$/.test(url)) throw validationError('Enter a valid URL.', 'documentation_url', 'invalid');
  return { changes: fieldsOf(body), rolloutToAll: bool(body, 'rollout_to_all') ?? false };
}

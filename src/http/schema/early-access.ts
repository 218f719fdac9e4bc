import { z } from 'zod';
import { EARLY_ACCESS_STAGES, EarlyAccessFields } from '../../../streams';
import { validationError } from '../../errors';
import { slugify } from '../../early-access/enrollment';
import type { EarlyAccessCreate, EarlyAccessUpdate } from '../../early-access/input';
import { jsonObject } from './common';
import { bool, choice, drf, given, integer, isObject, refuse, refusalIssue, requiredObject, text } from './drf';

const assignee = drf(EarlyAccessFields.shape.assignee, (raw): EarlyAccessFields['assignee'] => {
  if (raw === null) return null;
  if (!isObject(raw) || (raw.type !== 'user' && raw.type !== 'role') || typeof raw.name !== 'string') return refuse('assignee must be null or {type: "user" | "role", name}.', 'invalid');
  return { type: raw.type, name: raw.name };
});

const documentationUrl = text({ blank: true }).transform((url, ctx) =>
  url !== '' && !/^https?:\/\/\S+$/.test(url) ? refusalIssue(ctx, validationError('Enter a valid URL.', null, 'invalid')) : url,
);

const fields = {
  name: text({ maxLength: 200 }),
  stage: choice(EARLY_ACCESS_STAGES),
  documentation_url: documentationUrl.optional(),
  description: text({ blank: true }).optional(),
  payload: requiredObject().optional(),
  assignee: assignee.optional(),
};

export const CreateEarlyAccessBody = jsonObject({
  ...fields,
  feature_flag_id: integer({ description: 'An existing flag to own; without one, a flag is created.' }).optional(),
})
  .transform((b, ctx): EarlyAccessCreate => {
    const featureFlagId = b.feature_flag_id ?? null;
    // The flag created for the feature is keyed by its name.
    if (featureFlagId === null && slugify(b.name) === '')
      return refusalIssue(ctx, validationError('The name must contain letters or digits to derive a feature flag key from.'), ['name']);
    const { name, stage, description = '', documentation_url = '', payload = {}, assignee = null } = b;
    return { fields: { name, stage, description, documentation_url, payload, assignee }, featureFlagId };
  })
  .meta({ examples: [{ name: 'Dark mode', stage: 'beta', description: 'Try the dark theme.' }] });

export const UpdateEarlyAccessBody = jsonObject({
  ...fields,
  name: fields.name.optional(),
  stage: fields.stage.optional(),
  rollout_to_all: bool('With `stage: general-availability`: release the flag to everyone.').optional(),
})
  .transform(({ name, stage, description, documentation_url, payload, assignee, rollout_to_all }): EarlyAccessUpdate => {
    return { changes: given({ name, stage, description, documentation_url, payload, assignee }), rolloutToAll: rollout_to_all ?? false };
  })
  .meta({ examples: [{ stage: 'general-availability' }] });

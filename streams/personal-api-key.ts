import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

export const personalApiKeyStream = (id: string) => `personalapikey-${id}`;

export const SCOPES = [
  'experiment:read',
  'experiment:write',
  'batch_export:read',
  'batch_export:write',
  'feature_flag:read',
  'feature_flag:write',
  'person:read',
  'group:read',
  'cohort:read',
  'cohort:write',
  'query:read',
  'project:read',
  'project:write',
  'organization:read',
  'user:read',
  'session_recording:read',
  'survey:read',
  'survey:write',
  'early_access_feature:read',
  'early_access_feature:write',
  'action:read',
  'action:write',
  /** The project-wide activity log; each entry also needs the read scope of the resource it describes. */
  'activity_log:read',
  'personal_api_key:read',
  'personal_api_key:write',
] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;
export const ScopeOrAll = z.union([z.literal('*'), Scope]);
export type ScopeOrAll = z.infer<typeof ScopeOrAll>;

export const PersonalApiKeyCreated = defineEvent(
  'PersonalApiKeyCreated',
  z.object({
    id: z.string().min(1),
    userId: z.number().int().positive(),
    label: z.string().max(100),
    /** sha256 of the key: the key itself never enters the log. */
    secureValue: z.string().regex(/^sha256\$[0-9a-f]{64}$/),
    maskValue: z.string(),
    scopes: z.array(ScopeOrAll).min(1),
    scopedProjects: z.array(z.number().int().positive()).nullable(),
    scopedOrganizations: z.array(z.uuid()).nullable(),
  }),
);

export const PersonalApiKeyRevoked = defineEvent('PersonalApiKeyRevoked', z.object({ id: z.string().min(1) }));

/** A new value for the same key (PostHog's "roll"): the old value stops working at once. */
export const PersonalApiKeyRolled = defineEvent(
  'PersonalApiKeyRolled',
  z.object({ id: z.string().min(1), secureValue: z.string().regex(/^sha256\$[0-9a-f]{64}$/), maskValue: z.string() }),
);

export const personalApiKeyEvents = [PersonalApiKeyCreated, PersonalApiKeyRevoked, PersonalApiKeyRolled] as const;
export type PersonalApiKeyEvent = EventOf<(typeof personalApiKeyEvents)[number]>;

import { z } from 'zod';
import { ActionStep, type ActionFields } from '../../../streams';
import { readSteps } from '../../actions/steps';
import { jsonObject, UserBasic } from './common';
import { bool, drf, given, instant, refuse, refuseNulCharacters } from './drf';

/** A CharField that may be blank (PostHog's model fields with blank=True); `nullable`: null too. */
const blankText = (maxLength: number | null, nullable: boolean, description: string) =>
  drf(
    nullable ? z.string().nullable() : z.string(),
    (raw): string | null => {
      if (raw === null) return nullable ? null : refuse('This field may not be null.', 'null');
      if (typeof raw !== 'string') return refuse('Not a valid string.', 'invalid');
      if (maxLength !== null && raw.length > maxLength) return refuse(`Ensure this field has no more than ${maxLength} characters.`, 'max_length');
      return refuseNulCharacters(raw);
    },
    description,
  ).optional();

/** PostHog's ActionSerializer writable fields, with its limits and messages. */
const fields = {
  name: blankText(400, true, 'Unique among the project\'s live actions (as written).'),
  description: blankText(null, false, 'What the action stands for.'),
  tags: drf(
    z.array(z.string()),
    (raw): string[] => (Array.isArray(raw) && raw.every((t) => typeof t === 'string') ? [...new Set(raw)] : refuse(`Expected a list of items but got type "${typeof raw}".`, 'not_a_list')),
    'Free-form tags.',
  ).optional(),
  steps: drf(
    z.array(ActionStep.partial()),
    readSteps,
    'The steps, OR-ed: an event matches when any step does, a step when all its set fields hold (`event`, `url` by `url_matching` contains/regex/exact on `$current_url`, event `properties`; `selector`, `tag_name`, `text`, `href` on `$autocapture` events). Stored with every key, `url_matching` "contains" unless given.',
  ).optional(),
  post_to_slack: bool('Kept as given; this service posts nowhere.').optional(),
  slack_message_format: blankText(1200, false, 'Kept as given.'),
  pinned_at: instant('Any timestamp pins (with the server\'s time, once), null unpins.').optional(),
  deleted: bool('PostHog\'s soft delete: true hides the action from the list, false restores it.').optional(),
};

const fieldsOf = (b: { name?: string | null; description?: string | null; tags?: string[]; steps?: ActionFields['steps']; post_to_slack?: boolean; slack_message_format?: string | null; pinned_at?: string | null }) =>
  given({
    name: b.name,
    description: b.description ?? undefined,
    tags: b.tags,
    steps: b.steps,
    post_to_slack: b.post_to_slack,
    slack_message_format: b.slack_message_format ?? undefined,
    pinned_at: b.pinned_at,
  });

export const CreateActionBody = jsonObject(fields)
  .transform((b): { fields: ActionFields; deleted: boolean } => ({
    fields: { name: null, description: '', tags: [], steps: [], post_to_slack: false, slack_message_format: '', pinned_at: null, ...fieldsOf(b) },
    deleted: b.deleted ?? false,
  }))
  .meta({ examples: [{ name: 'Signed up', steps: [{ event: '$pageview', url: '/welcome', url_matching: 'contains' }, { event: 'signed_up' }] }] });

/** Read-only fields a client sends back are ignored, as DRF ignores them. */
export const UpdateActionBody = jsonObject(fields)
  .transform((b): { changes: Partial<ActionFields>; deleted: boolean | undefined } => ({ changes: fieldsOf(b), deleted: b.deleted }))
  .meta({ examples: [{ deleted: true }] });


export const Action = z
  .object({
    id: z.number().int(),
    name: z.string().nullable(),
    description: z.string(),
    tags: z.array(z.string()),
    post_to_slack: z.boolean(),
    slack_message_format: z.string(),
    steps: z.array(ActionStep),
    created_at: z.string(),
    created_by: UserBasic.nullable(),
    deleted: z.boolean(),
    is_calculating: z.boolean(),
    last_calculated_at: z.string(),
    team_id: z.number().int(),
    is_action: z.boolean(),
    bytecode_error: z.string().nullable(),
    pinned_at: z.string().nullable(),
    creation_context: z.null(),
  })
  .meta({ id: 'Action' });

import { z } from 'zod';
import { FlagRequest } from '../../flags/serving/flag-request';

/**
 * The SDK endpoints' wire shapes, as PostHog documents them. These routes decode their own bodies
 * (JSON, gzip, base64, `data=` form fields, lz-string), so these schemas only describe them in the
 * OpenAPI document; the ingest pipeline is what validates.
 */
const ProjectKey = z.string().meta({ description: 'The project API key (`phc_…`); `token` is accepted too.', examples: ['phc_yourProjectKey'] });
const Properties = z.record(z.string(), z.unknown()).meta({ description: 'Event properties; `$set` / `$set_once` update the person.' });

export const CaptureEvent = z
  .looseObject({
    event: z.string().meta({ examples: ['$pageview'] }),
    distinct_id: z.string().optional().meta({ description: 'Or `properties.distinct_id`.', examples: ['user-123'] }),
    properties: Properties.optional(),
    timestamp: z.string().optional().meta({ description: 'ISO 8601; defaults to the time received.' }),
    uuid: z.string().optional().meta({ description: 'Deduplication key; generated when absent.' }),
    $set: z.record(z.string(), z.unknown()).optional(),
    $set_once: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'CaptureEvent' });

export const CaptureBody = CaptureEvent.extend({ api_key: ProjectKey.optional(), token: ProjectKey.optional() }).meta({
  description: 'One event with the project key (or, on `/e/` and `/capture`, a batch as below).',
  examples: [{ api_key: 'phc_yourProjectKey', event: 'signed up', distinct_id: 'user-123', properties: { plan: 'pro' } }],
});

export const BatchBody = z
  .looseObject({
    api_key: ProjectKey.optional(),
    token: ProjectKey.optional(),
    batch: z.array(CaptureEvent),
    sent_at: z.string().optional().meta({ description: 'Client send time, ISO 8601: corrects clock skew.' }),
    historical_migration: z.boolean().optional(),
  })
  .meta({ examples: [{ api_key: 'phc_yourProjectKey', batch: [{ event: '$pageview', distinct_id: 'user-123', properties: { $current_url: 'https://example.com/' } }] }] });

export const SDK_CONTENT_TYPES = ['application/json', 'text/plain', 'application/x-www-form-urlencoded'];

export const CaptureAnswer = z.object({ status: z.literal(1) }).meta({ description: 'Appended durably.' });

export const SdkQuery = z.looseObject({
  compression: z.enum(['gzip-js', 'base64', 'lz64']).optional().meta({ description: 'How the body is compressed (or use Content-Encoding).' }),
  ver: z.string().optional().meta({ description: 'SDK version.' }),
  ip: z.string().optional(),
  _: z.string().optional().meta({ description: 'Client timestamp (ms).' }),
});

export const FlagsBody = FlagRequest.meta({
  examples: [{ api_key: 'phc_yourProjectKey', distinct_id: 'user-123', person_properties: { email: 'ada@example.com' }, groups: { company: 'acme' } }],
});

export const FlagsQuery = z.looseObject({
  v: z.string().optional().meta({ description: 'API version: /flags 1 or 2, /decide 1–4.' }),
  config: z.string().optional().meta({ description: '`true`: include the remote config fields.' }),
});

const FlagDetail = z.looseObject({
  key: z.string(),
  enabled: z.boolean(),
  variant: z.string().nullable(),
  reason: z.looseObject({ code: z.string(), condition_index: z.number().int().nullable(), description: z.string() }).nullable(),
  metadata: z.looseObject({ id: z.number().int(), version: z.number().int(), payload: z.unknown() }),
});

export const FlagsAnswer = z
  .looseObject({
    flags: z.record(z.string(), FlagDetail).optional().meta({ description: 'v2: every flag by key.' }),
    featureFlags: z.record(z.string(), z.union([z.boolean(), z.string()])).optional().meta({ description: 'v1 and /decide: value by key.' }),
    featureFlagPayloads: z.record(z.string(), z.unknown()).optional(),
    errorsWhileComputingFlags: z.boolean(),
    requestId: z.string().optional(),
  })
  .meta({ description: 'Flag values for the distinct id; with config, the remote config fields too.' });

import { z } from 'zod';

/**
 * PostHog's `ExperimentMetric` (frontend/src/queries/schema/schema-general.ts), as far as this
 * service reads it. Unknown keys are kept (loose objects): PostHog's app sends more than any one
 * version reads, and a metric is stored as given.
 */
const PropertyFilter = z.looseObject({ key: z.string(), value: z.unknown().optional(), operator: z.string().optional(), type: z.string().optional() });

export const EventsNode = z.looseObject({
  kind: z.literal('EventsNode'),
  event: z.string().nullable().optional(),
  name: z.string().optional(),
  math: z.enum(['total', 'sum', 'avg', 'min', 'max', 'unique_session', 'dau', 'unique_group', 'hogql']).optional(),
  math_property: z.string().optional(),
  properties: z.array(PropertyFilter).optional(),
});
export const ActionsNode = z.looseObject({ kind: z.literal('ActionsNode'), id: z.number().int(), math: EventsNode.shape.math, math_property: z.string().optional() });
export const MetricSource = z.discriminatedUnion('kind', [EventsNode, ActionsNode]);

const TimeUnit = z.enum(['second', 'minute', 'hour', 'day', 'week', 'month']);

const common = {
  kind: z.literal('ExperimentMetric'),
  uuid: z.string().optional(),
  fingerprint: z.string().optional(),
  name: z.string().optional(),
  conversion_window: z.number().int().positive().nullable().optional(),
  conversion_window_unit: TimeUnit.nullable().optional(),
  goal: z.enum(['increase', 'decrease']).optional(),
  isSharedMetric: z.boolean().optional(),
  sharedMetricId: z.number().int().optional(),
  breakdownFilter: z.looseObject({ breakdowns: z.array(z.looseObject({ property: z.string(), type: z.string().nullable().optional() })).max(3).optional() }).optional(),
};

export const MeanMetric = z.looseObject({
  ...common,
  metric_type: z.literal('mean'),
  source: MetricSource,
  lower_bound_percentile: z.number().min(0).max(1).nullable().optional(),
  upper_bound_percentile: z.number().min(0).max(1).nullable().optional(),
  ignore_zeros: z.boolean().optional(),
});

export const FunnelMetric = z.looseObject({
  ...common,
  metric_type: z.literal('funnel'),
  series: z.array(MetricSource),
  funnel_order_type: z.enum(['ordered', 'unordered', 'strict']).nullable().optional(),
});

export const RatioMetric = z.looseObject({ ...common, metric_type: z.literal('ratio'), numerator: MetricSource, denominator: MetricSource });

export const RetentionMetric = z
  .looseObject({
    ...common,
    metric_type: z.literal('retention'),
    start_event: MetricSource,
    completion_event: MetricSource,
    retention_window_start: z.number().int().min(0),
    retention_window_end: z.number().int().min(0),
    retention_window_unit: TimeUnit,
    start_handling: z.enum(['first_seen', 'last_seen']),
  })
  .refine((m) => m.retention_window_end >= m.retention_window_start, {
    message: 'retention_window_end must not be before retention_window_start',
    path: ['retention_window_end'],
  });

export const ExperimentMetric = z.discriminatedUnion('metric_type', [MeanMetric, FunnelMetric, RatioMetric, RetentionMetric]);
export type ExperimentMetric = z.infer<typeof ExperimentMetric>;
export type MeanMetric = z.infer<typeof MeanMetric>;
export type FunnelMetric = z.infer<typeof FunnelMetric>;
export type RatioMetric = z.infer<typeof RatioMetric>;
export type RetentionMetric = z.infer<typeof RetentionMetric>;
export type MetricSource = z.infer<typeof MetricSource>;

export const METRIC_TYPES = ['mean', 'funnel', 'ratio', 'retention'] as const;
export const LEGACY_METRIC_KINDS = ['ExperimentTrendsQuery', 'ExperimentFunnelsQuery'] as const;

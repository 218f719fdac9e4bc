import type { EarlyAccessRow } from '../../projections/early-access-queries';
import type { FeatureFlagRow } from '../../projections/feature-flags-queries';

type FlagLookup = (projectId: number, id: number) => Promise<FeatureFlagRow | undefined>;

/** PostHog's EarlyAccessFeatureSerializer shape, with the owned flag in its minimal form. */
export async function earlyAccessBody(e: EarlyAccessRow, flag: FlagLookup, createdBy: unknown) {
  const f = await flag(e.project_id, e.flag_id);
  return {
    id: e.id,
    feature_flag: f
      ? { id: f.id, team_id: f.project_id, key: f.key, name: f.name, filters: f.filters, deleted: f.deleted, active: f.active, ensure_experience_continuity: f.ensure_experience_continuity }
      : null,
    name: e.fields.name,
    description: e.fields.description,
    stage: e.fields.stage,
    documentation_url: e.fields.documentation_url,
    payload: e.fields.payload,
    assignee: e.fields.assignee,
    created_at: e.created_at,
    created_by: createdBy,
  };
}

/** What posthog-js reads from /api/early_access_features/ (compat §8). */
export const publicEarlyAccessBody = (e: EarlyAccessRow) => ({
  id: e.id,
  name: e.fields.name,
  description: e.fields.description,
  stage: e.fields.stage,
  documentationUrl: e.fields.documentation_url,
  flagKey: e.flag_key,
  payload: e.fields.payload,
  assignee: e.fields.assignee,
});

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../actor';
import { ProjectSettings } from '../../../streams';
import type { ProjectRow } from '../../../projections/access-queries';
import { reachableProjects, type AuthContext } from '../auth';
import { pageEnvelope } from '../pagination';
import { pageQuery, paginated, ProjectParams } from '../schema/common';
import type { Parts } from '../runtime-parts';

/** Every setting with PostHog's default when never changed (off, or no value). */
const SETTING_DEFAULTS: Required<ProjectSettings> = {
  autocapture_opt_out: false,
  autocapture_exceptions_opt_in: false,
  capture_dead_clicks: false,
  heatmaps_opt_in: false,
  capture_performance_opt_in: false,
  autocapture_web_vitals_opt_in: false,
  autocapture_web_vitals_allowed_metrics: null,
  capture_console_log_opt_in: false,
  session_recording_opt_in: false,
  session_recording_sample_rate: null,
  session_recording_minimum_duration_milliseconds: null,
  session_recording_linked_flag: null,
  surveys_opt_in: false,
  inject_web_apps: false,
};

/** PostHog's Team (a project) with the settings remote config is built from (compat §6). */
export const ProjectBody = z
  .object({
    id: z.number().int(),
    organization: z.string(),
    name: z.string(),
    api_token: z.string().meta({ description: 'The public project API key (`phc_…`) SDKs send.' }),
    created_at: z.string(),
    timezone: z.string(),
    is_demo: z.boolean(),
    ...ProjectSettings.required().shape,
  })
  .meta({ id: 'Project' });
type ProjectBody = z.output<typeof ProjectBody>;

export const projectBody = (p: ProjectRow): ProjectBody => ({
  id: p.id,
  organization: p.organization_id,
  name: p.name,
  api_token: p.api_token,
  created_at: p.created_at,
  timezone: 'UTC',
  is_demo: false,
  ...SETTING_DEFAULTS,
  ...(JSON.parse(p.settings) as ProjectSettings),
});

/** PostHog's DecimalField(3, 2): a number or numeric string 0–1, at most 2 places, shown as "0.50". */
const sampleRate = z.preprocess(
  (v) => (typeof v === 'number' ? String(v) : v),
  z
    .string()
    .regex(/^\d+(\.\d{1,2})?$/, 'Ensure that there are no more than 2 decimal places.')
    .refine((s) => Number(s) >= 0 && Number(s) <= 1, 'Ensure this value is between 0 and 1.')
    .transform((s) => Number(s).toFixed(2))
    .nullable(),
);
const SettingsPatch = ProjectSettings.extend({ session_recording_sample_rate: sampleRate.optional(), name: z.string().max(200).optional() }).meta({
  description: 'The name and settings to change; the others keep their values.',
  examples: [{ session_recording_opt_in: true, session_recording_sample_rate: '0.50', autocapture_opt_out: false }, { name: 'Marketing site' }],
});

export const projectRoutes: FastifyPluginAsyncZod<Parts<'access', 'access'>> = async (app, parts) => {
  const queries = parts.queries.access;

  app.get(
    '/api/projects/',
    {
      config: { scope: 'project:read' },
      schema: { summary: 'The projects the key reaches.', querystring: z.object(pageQuery()), response: { 200: paginated(ProjectBody) } },
    },
    async (request) => {
      const page = request.query;
      const auth = request.auth!;
      const { count, rows } = auth.projectFilter ? await scoped(auth, page) : await queries.projectsOf(auth.organizationIds, page.limit, page.offset);
      return pageEnvelope(request, page, count, rows.map(projectBody));
    },
  );

  app.get(
    '/api/projects/:project_id/',
    { config: { scope: 'project:read' }, schema: { summary: 'One project (`@current`: the key\'s first).', params: ProjectParams, response: { 200: ProjectBody } } },
    async (request) => projectBody((await queries.project(Number(request.params.project_id)))!),
  );

  // The settings remote config is built from (compat §6); each change is one event on the project.
  app.patch(
    '/api/projects/:project_id/',
    {
      config: { scope: 'project:write' },
      schema: { summary: "Renames the project and/or changes its settings.", params: ProjectParams, body: SettingsPatch, response: { 200: ProjectBody } },
    },
    async (request) => {
      const id = Number(request.params.project_id);
      const { name, ...settings } = request.body;
      if (name !== undefined) await parts.access.renameProject(id, name, actorOf(request));
      if (Object.keys(settings).length) await parts.access.changeProjectSettings(id, settings, actorOf(request));
      return projectBody((await queries.project(id))!);
    },
  );

  async function scoped(auth: AuthContext, page: { limit: number; offset: number }) {
    const listed = (await Promise.all(auth.projectFilter!.map((id) => queries.project(id)))).filter((p): p is ProjectRow => !!p);
    const rows = reachableProjects(auth, listed).sort((a, b) => a.id - b.id);
    return { count: rows.length, rows: rows.slice(page.offset, page.offset + page.limit) };
  }
};

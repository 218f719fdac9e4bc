import type { Runtime } from '../app';
import { parse, UsageError } from './args';

/** projects create <name> [--organization <uuid>] | projects list */
export async function projectsCommand(runtime: Runtime, argv: string[]) {
  const [sub, ...rest] = argv;
  const q = runtime.queries.access;
  if (sub === 'create') {
    const { values, positionals } = parse(rest, { organization: { type: 'string' } });
    const name = positionals.join(' ').trim();
    if (!name) throw new UsageError('projects create <name> [--organization <uuid>]');
    const orgId = values.organization ?? (await q.firstOrganization())?.id;
    if (!orgId) throw new UsageError('no organization: run bootstrap first or pass --organization');
    const project = await runtime.access.createProject(orgId, name, { type: 'cli' });
    process.stdout.write(values.json ? JSON.stringify({ id: project.id, api_token: project.apiToken, organization_id: orgId }) + '\n' : `${project.id} ${project.apiToken}\n`);
    return;
  }
  if (sub === 'list') {
    const { values } = parse(rest, {});
    const org = await q.firstOrganization();
    const rows = org ? (await q.projectsOf([org.id], 1000, 0)).rows : [];
    if (values.json) process.stdout.write(JSON.stringify(rows) + '\n');
    else for (const p of rows) process.stdout.write(`${p.id}  ${p.name}  ${p.api_token}\n`);
    return;
  }
  throw new UsageError('projects create <name> [--organization <uuid>] | projects list');
}

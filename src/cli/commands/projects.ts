import type { Command } from 'commander';
import { examples } from '../help';
import { UsageError } from '../errors';
import { withRuntime } from '../session';

export function registerProjects(program: Command) {
  const projects = program.command('projects').description('create and list projects');

  projects
    .command('create')
    .description('create a project; prints its id and project API key')
    .argument('<name...>', 'the project name (several words are joined)')
    .option('--organization <uuid>', 'the organization (default: the first one)')
    .option('--json', 'print {id, api_token, organization_id}')
    .addHelpText('after', examples('projects create "Staging" --json'))
    .action((words: string[], options: { organization?: string; json?: boolean }) =>
      withRuntime(async ({ runtime }) => {
        const name = words.join(' ').trim();
        if (!name) throw new UsageError('projects create: the name is empty');
        const orgId = options.organization ?? (await runtime.queries.access.firstOrganization())?.id;
        if (!orgId) throw new UsageError('no organization: run bootstrap first or pass --organization');
        const project = await runtime.access.createProject(orgId, name, { type: 'cli' });
        process.stdout.write(options.json ? JSON.stringify({ id: project.id, api_token: project.apiToken, organization_id: orgId }) + '\n' : `${project.id} ${project.apiToken}\n`);
      }),
    );

  projects
    .command('list')
    .description("list the first organization's projects: id, name, project API key")
    .option('--json', 'print a JSON array')
    .addHelpText('after', examples('projects list'))
    .action((options: { json?: boolean }) =>
      withRuntime(async ({ runtime }) => {
        const q = runtime.queries.access;
        const org = await q.firstOrganization();
        const rows = org ? (await q.projectsOf([org.id], 1000, 0)).rows : [];
        if (options.json) process.stdout.write(JSON.stringify(rows) + '\n');
        else for (const p of rows) process.stdout.write(`${p.id}  ${p.name}  ${p.api_token}\n`);
      }),
    );
}

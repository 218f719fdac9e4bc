import type { Command } from 'commander';
import { examples } from '../help';
import { SCOPES, ScopeOrAll } from '../../../streams';
import { intList, list, positiveInt } from '../options';
import { UsageError } from '../errors';
import { withRuntime } from '../session';

interface CreateOptions {
  scopes?: string[];
  projects?: number[];
  organizations?: string[];
  label: string;
  user?: number;
  json?: boolean;
}

export function registerKeys(program: Command) {
  const keys = program.command('keys').description('personal API keys: create, list (masked), revoke');

  keys
    .command('create')
    .description('issue a personal API key with scopes; prints its id and the key (shown once, stored hashed)')
    .option('--scopes <scopes>', `required: comma-separated scopes, or * for all (${SCOPES.join(', ')})`, list)
    .option('--projects <ids>', 'limit the key to these project ids (comma-separated)', intList)
    .option('--organizations <uuids>', 'limit the key to these organizations (comma-separated)', list)
    .option('--label <label>', 'a label shown in keys list and in activity', 'cli')
    .option('--user <id>', 'the user the key belongs to (default: the first user)', positiveInt)
    .option('--json', 'print {id, key, scopes}')
    .addHelpText('after', examples('keys create --scopes feature_flag:read --label flags-poller', 'keys create --scopes experiment:read,feature_flag:write --projects 1 --json'))
    .action((options: CreateOptions) => {
      // Checked here rather than as a commander requiredOption: that check runs before the one for
      // unknown options, so a misspelt `--scope` would be reported as a missing `--scopes`.
      if (!options.scopes?.length) throw new UsageError("required option '--scopes <scopes>' not specified");
      const scopes = options.scopes.map((s) => {
        const r = ScopeOrAll.safeParse(s);
        if (!r.success) throw new UsageError(`--scopes: unknown scope ${s}; known: *, ${SCOPES.join(', ')}`);
        return r.data;
      });
      return withRuntime(async ({ runtime: { queries, access } }) => {
        const org = await queries.access.firstOrganization();
        const userId = options.user ?? (org ? (await queries.access.firstUserOf(org.id))?.id : undefined);
        if (!userId) throw new UsageError('no user: run bootstrap first or pass --user');
        for (const p of options.projects ?? []) if (!(await queries.access.project(p))) throw new UsageError(`--projects: no project ${p}`);
        const key = await access.createPersonalKey(
          { userId, label: options.label, scopes, scopedProjects: options.projects ?? null, scopedOrganizations: options.organizations ?? null },
          { type: 'cli' },
        );
        process.stdout.write(options.json ? JSON.stringify({ id: key.id, key: key.key, scopes: key.scopes }) + '\n' : `${key.id}\n${key.key}\n`);
      });
    });

  keys
    .command('list')
    .description('list personal API keys, masked: id, mask, active or revoked, label, scopes, projects')
    .option('--json', 'print a JSON array')
    .addHelpText('after', examples('keys list --json'))
    .action((options: { json?: boolean }) =>
      withRuntime(async ({ runtime }) => {
        const rows = (await runtime.queries.access.keys()).map((k) => ({
          id: k.id,
          label: k.label,
          mask: k.mask_value,
          scopes: k.scopes,
          projects: k.scoped_projects,
          created_at: k.created_at,
          revoked_at: k.revoked_at,
        }));
        if (options.json) process.stdout.write(JSON.stringify(rows) + '\n');
        else
          for (const k of rows)
            process.stdout.write(`${k.id}  ${k.mask}  ${k.revoked_at ? 'REVOKED' : 'active '}  ${k.label}  ${k.scopes.join(',')}${k.projects ? `  projects=${k.projects.join(',')}` : ''}\n`);
      }),
    );

  keys
    .command('revoke')
    .description('revoke a personal API key: it stops authenticating at once')
    .argument('<id>', 'the key id (from keys list)')
    .addHelpText('after', examples('keys revoke 0193a1c2-…'))
    .action((id: string) =>
      withRuntime(async ({ runtime }) => {
        await runtime.access.revokePersonalKey(id, { type: 'cli' });
        process.stdout.write(`revoked ${id}\n`);
      }),
    );
}

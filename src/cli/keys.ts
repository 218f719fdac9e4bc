import { SCOPES, ScopeOrAll } from '../../streams';
import type { Runtime } from '../app';
import { list, parse, UsageError } from './args';

const HELP = `keys create --scopes a:read,b:write|* [--projects 1,2] [--organizations <uuid>] [--label L] [--user ID] [--json]
keys list [--json]
keys revoke <id>`;

/** Personal API keys: created with scopes (optionally limited to projects), listed masked, revoked. */
export async function keysCommand(runtime: Runtime, argv: string[]) {
  const [sub, ...rest] = argv;
  const { queries, access } = runtime;
  switch (sub) {
    case 'create': {
      const { values } = parse(rest, {
        scopes: { type: 'string' },
        projects: { type: 'string' },
        organizations: { type: 'string' },
        label: { type: 'string' },
        user: { type: 'string' },
      });
      const scopes = list(values.scopes);
      if (!scopes?.length) throw new UsageError('--scopes is required (comma separated, or *)');
      const parsed = scopes.map((s) => {
        const r = ScopeOrAll.safeParse(s);
        if (!r.success) throw new UsageError(`unknown scope ${s}; known: *, ${SCOPES.join(', ')}`);
        return r.data;
      });
      const org = await queries.access.firstOrganization();
      const userId = values.user ? Number(values.user) : org ? (await queries.access.firstUserOf(org.id))?.id : undefined;
      if (!userId) throw new UsageError('no user: run bootstrap first or pass --user');
      const projects = list(values.projects)?.map(Number);
      if (projects && (await Promise.all(projects.map(async (p) => !Number.isInteger(p) || !(await queries.access.project(p))))).some(Boolean)) throw new UsageError('--projects names an unknown project');
      const key = await access.createPersonalKey(
        { userId, label: values.label ?? 'cli', scopes: parsed, scopedProjects: projects ?? null, scopedOrganizations: list(values.organizations) ?? null },
        { type: 'cli' },
      );
      process.stdout.write(values.json ? JSON.stringify({ id: key.id, key: key.key, scopes: key.scopes }) + '\n' : `${key.id}\n${key.key}\n`);
      return;
    }
    case 'list': {
      const { values } = parse(rest, {});
      const keys = (await queries.access.keys()).map((k) => ({
        id: k.id,
        label: k.label,
        mask: k.mask_value,
        scopes: k.scopes,
        projects: k.scoped_projects,
        created_at: k.created_at,
        revoked_at: k.revoked_at,
      }));
      if (values.json) process.stdout.write(JSON.stringify(keys) + '\n');
      else for (const k of keys) process.stdout.write(`${k.id}  ${k.mask}  ${k.revoked_at ? 'REVOKED' : 'active '}  ${k.label}  ${k.scopes.join(',')}${k.projects ? `  projects=${k.projects.join(',')}` : ''}\n`);
      return;
    }
    case 'revoke': {
      const { positionals } = parse(rest, {});
      if (!positionals[0]) throw new UsageError('keys revoke <id>');
      await access.revokePersonalKey(positionals[0], { type: 'cli' });
      process.stdout.write(`revoked ${positionals[0]}\n`);
      return;
    }
    default:
      throw new UsageError(HELP);
  }
}

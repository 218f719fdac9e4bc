import type { Actor } from '../../streams';
import type { AccessService } from './service';
import type { AccessQueries } from '../../projections/access-queries';

export interface Credentials {
  organization_id: string;
  project_id: number;
  project_api_key: string;
  personal_api_key: string;
}

/**
 * First start: a default organization, user, project and an all-scopes personal key. On an already
 * initialised store it reuses the first organization and project and issues a fresh personal key
 * (the old one is only stored hashed, so it cannot be shown again).
 */
export async function bootstrap(access: AccessService, queries: AccessQueries, actor: Actor) {
  let org = await queries.firstOrganization();
  const created = !org;
  if (!org) {
    const orgId = await access.createOrganization('Default organization', actor);
    const userId = await access.createUser({ email: 'admin@localhost.localdomain', firstName: 'Admin', lastName: '' }, actor);
    await access.addMember(orgId, userId, 'owner', actor);
    await access.createProject(orgId, 'Default project', actor);
    org = (await queries.firstOrganization())!;
  }
  const project = (await queries.firstProjectOf(org.id))!;
  const user = (await queries.firstUserOf(org.id))!;
  const key = await access.createPersonalKey({ userId: user.id, label: created ? 'bootstrap' : 'bootstrap (reissued)', scopes: ['*'] }, actor);
  const credentials: Credentials = {
    organization_id: org.id,
    project_id: project.id,
    project_api_key: project.api_token,
    personal_api_key: key.key,
  };
  return { credentials, created };
}

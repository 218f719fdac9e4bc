import type { SqlSession } from '../src/store/sql';

export interface ProjectRow {
  id: number;
  organization_id: string;
  name: string;
  api_token: string;
  created_at: string;
  /** The project's settings (ProjectSettings) as JSON: only the fields ever changed. */
  settings: string;
}
export interface OrganizationRow {
  id: string;
  name: string;
  created_at: string;
}
export interface UserRow {
  id: number;
  uuid: string;
  distinct_id: string;
  email: string;
  first_name: string;
  last_name: string;
  created_at: string;
}
export interface PersonalKeyRow {
  id: string;
  user_id: number;
  label: string;
  mask_value: string;
  scopes: string[];
  scoped_projects: number[] | null;
  scoped_organizations: string[] | null;
  created_at: string;
  revoked_at: string | null;
  last_rolled_at: string | null;
}

interface RawKeyRow extends Omit<PersonalKeyRow, 'scopes' | 'scoped_projects' | 'scoped_organizations'> {
  scopes: string;
  scoped_projects: string | null;
  scoped_organizations: string | null;
}

const keyRow = (r: RawKeyRow): PersonalKeyRow => ({
  ...r,
  scopes: JSON.parse(r.scopes),
  scoped_projects: r.scoped_projects ? JSON.parse(r.scoped_projects) : null,
  scoped_organizations: r.scoped_organizations ? JSON.parse(r.scoped_organizations) : null,
});

/** Read side of the access projection: the queries authentication and the API need. */
export function accessQueries(db: SqlSession) {
  const maxId = async (table: 'projects' | 'users') => (await db.get<{ id: number | null }>(`SELECT max(id) AS id FROM ${table}`))?.id ?? 0;
  return {
    project: (id: number) => db.get<ProjectRow>('SELECT * FROM projects WHERE id = ?', id),
    projectByToken: (token: string) => db.get<ProjectRow>('SELECT * FROM projects WHERE api_token = ?', token),
    projectsOf: async (organizationIds: readonly string[], limit: number, offset: number) => {
      const where = db.dialect.inJsonArray('organization_id', 'text');
      const ids = JSON.stringify(organizationIds);
      const count = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM projects WHERE ${where}`, ids))!.n;
      const rows = await db.all<ProjectRow>(`SELECT * FROM projects WHERE ${where} ORDER BY id LIMIT ? OFFSET ?`, ids, limit, offset);
      return { count, rows };
    },
    maxProjectId: () => maxId('projects'),
    organization: (id: string) => db.get<OrganizationRow>('SELECT * FROM organizations WHERE id = ?', id),
    firstOrganization: () => db.get<OrganizationRow>('SELECT * FROM organizations ORDER BY created_at, id LIMIT 1'),
    firstProjectOf: (organizationId: string) =>
      db.get<ProjectRow>('SELECT * FROM projects WHERE organization_id = ? ORDER BY id LIMIT 1', organizationId),
    user: (id: number) => db.get<UserRow>('SELECT * FROM users WHERE id = ?', id),
    firstUserOf: (organizationId: string) =>
      db.get<UserRow>(
        `SELECT u.* FROM users u JOIN memberships m ON m.user_id = u.id WHERE m.organization_id = ?
         ORDER BY m.joined_at, u.id LIMIT 1`,
        organizationId,
      ),
    maxUserId: () => maxId('users'),
    organizationsOf: async (userId: number) =>
      (await db.all<{ organization_id: string }>('SELECT organization_id FROM memberships WHERE user_id = ? ORDER BY organization_id', userId)).map(
        (r) => r.organization_id,
      ),
    keyBySecureValue: async (secureValue: string) => {
      const row = await db.get<RawKeyRow>('SELECT * FROM personal_api_keys WHERE secure_value = ?', secureValue);
      return row ? keyRow(row) : undefined;
    },
    key: async (id: string) => {
      const row = await db.get<RawKeyRow>('SELECT * FROM personal_api_keys WHERE id = ?', id);
      return row ? keyRow(row) : undefined;
    },
    keys: async () => (await db.all<RawKeyRow>('SELECT * FROM personal_api_keys ORDER BY created_at, id')).map(keyRow),
    keysOf: async (userId: number) =>
      (await db.all<RawKeyRow>('SELECT * FROM personal_api_keys WHERE user_id = ? ORDER BY created_at, id', userId)).map(keyRow),
  };
}

export type AccessQueries = ReturnType<typeof accessQueries>;

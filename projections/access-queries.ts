import type { SqlStore } from './projection';

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
export function accessQueries(db: SqlStore) {
  return {
    project: (id: number) => db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as ProjectRow | undefined,
    projectByToken: (token: string) =>
      db.prepare('SELECT * FROM projects WHERE api_token = ?').get(token) as ProjectRow | undefined,
    projectsOf: (organizationIds: readonly string[], limit: number, offset: number) => {
      const where = `organization_id IN (SELECT value FROM json_each(?))`;
      const ids = JSON.stringify(organizationIds);
      const count = (db.prepare(`SELECT count(*) AS n FROM projects WHERE ${where}`).get(ids) as { n: number }).n;
      const rows = db
        .prepare(`SELECT * FROM projects WHERE ${where} ORDER BY id LIMIT ? OFFSET ?`)
        .all(ids, limit, offset) as ProjectRow[];
      return { count, rows };
    },
    maxProjectId: () => (db.prepare('SELECT max(id) AS id FROM projects').get() as { id: number | null }).id ?? 0,
    organization: (id: string) =>
      db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as OrganizationRow | undefined,
    firstOrganization: () =>
      db.prepare('SELECT * FROM organizations ORDER BY created_at, id LIMIT 1').get() as OrganizationRow | undefined,
    firstProjectOf: (organizationId: string) =>
      db.prepare('SELECT * FROM projects WHERE organization_id = ? ORDER BY id LIMIT 1').get(organizationId) as
        | ProjectRow
        | undefined,
    user: (id: number) => db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined,
    firstUserOf: (organizationId: string) =>
      db
        .prepare(
          `SELECT u.* FROM users u JOIN memberships m ON m.user_id = u.id WHERE m.organization_id = ?
           ORDER BY m.joined_at, u.id LIMIT 1`,
        )
        .get(organizationId) as UserRow | undefined,
    maxUserId: () => (db.prepare('SELECT max(id) AS id FROM users').get() as { id: number | null }).id ?? 0,
    organizationsOf: (userId: number) =>
      (db.prepare('SELECT organization_id FROM memberships WHERE user_id = ? ORDER BY organization_id').all(userId) as {
        organization_id: string;
      }[]).map((r) => r.organization_id),
    keyBySecureValue: (secureValue: string) => {
      const row = db.prepare('SELECT * FROM personal_api_keys WHERE secure_value = ?').get(secureValue) as
        | RawKeyRow
        | undefined;
      return row ? keyRow(row) : undefined;
    },
    key: (id: string) => {
      const row = db.prepare('SELECT * FROM personal_api_keys WHERE id = ?').get(id) as RawKeyRow | undefined;
      return row ? keyRow(row) : undefined;
    },
    keys: () => (db.prepare('SELECT * FROM personal_api_keys ORDER BY created_at, id').all() as RawKeyRow[]).map(keyRow),
  };
}

export type AccessQueries = ReturnType<typeof accessQueries>;

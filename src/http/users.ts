import type { UserRow } from '../../projections/access-queries';

/** PostHog's nested User shape (created_by and friends). */
export const userBody = (u: UserRow | undefined | null) =>
  u
    ? {
        id: u.id,
        uuid: u.uuid,
        distinct_id: u.distinct_id,
        first_name: u.first_name,
        last_name: u.last_name,
        email: u.email,
        is_email_verified: false,
      }
    : null;

import { z } from 'zod';
import { blankToUndefined, eventList, nullToUndefined, requiredString } from '../config-schema';

const identifier = (fallback: string) =>
  z.preprocess(blankToUndefined, z.string().trim().min(1).max(63, 'Must be at most 63 characters.').default(fallback));

export const postgresConfigSchema = z.object({
  user: requiredString(),
  /** May be empty for trust or peer authentication. */
  password: z.preprocess(nullToUndefined, z.string().default('')),
  // A host name or address: pg would read a path as a local socket directory, which no policy covers.
  host: requiredString().refine((host) => !/[/\\\s,]/.test(host), 'Must be a host name or an IP address.'),
  port: z.preprocess(
    blankToUndefined,
    z.coerce.number({ error: 'Must be a port number.' }).int('Must be a port number.').min(1).max(65535).default(5432),
  ),
  database: requiredString(),
  schema: identifier('public'),
  table_name: identifier('events'),
  exclude_events: eventList(),
  include_events: eventList(),
  /** TLS without certificate verification; without it the connection is unencrypted. */
  has_self_signed_cert: z.preprocess(nullToUndefined, z.boolean().default(false)),
});

export type PostgresConfig = z.output<typeof postgresConfigSchema>;

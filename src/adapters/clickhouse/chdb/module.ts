/**
 * The `chdb` package (ClickHouse's engine in-process), loaded on first use only: it weighs about
 * 546 MB and is not among the service's dependencies (`bash infra/chdb.sh` installs it). Typed
 * here by what this adapter calls, so the service type-checks and builds without it.
 */
export interface ChdbResult {
  text(): string;
}

export interface ChdbSession {
  queryAsync(sql: string, options?: { format?: string }): Promise<ChdbResult>;
  insert(params: { table: string; values: string; format: 'JSONEachRow' }): Promise<unknown>;
  close(): void;
}

type ChdbSessionClass = new (path: string, options?: { connectionArgs?: readonly string[] }) => ChdbSession;

/** The package's name, kept out of a literal import so that neither tsc nor esbuild looks for it. */
const PACKAGE = 'chdb';

export class ChdbMissingError extends Error {
  constructor(cause: unknown) {
    super(`ANALYTICS=chdb needs the chdb package, which is not installed here: run \`bash infra/chdb.sh\` (${firstLine(cause)})`);
    this.name = 'ChdbMissingError';
  }
}

const firstLine = (cause: unknown) => String(cause instanceof Error ? cause.message : cause).split('\n')[0];

let loaded: Promise<ChdbSessionClass> | null = null;

/** The package's Session class; ChdbMissingError when it is not installed. */
export function chdbSessionClass(): Promise<ChdbSessionClass> {
  loaded ??= (async () => {
    let mod: unknown;
    try {
      mod = await import(PACKAGE);
    } catch (err) {
      loaded = null;
      throw new ChdbMissingError(err);
    }
    const Session = typeof mod === 'object' && mod !== null && 'Session' in mod ? mod.Session : undefined;
    if (typeof Session !== 'function') throw new ChdbMissingError('it has no Session class');
    return Session as ChdbSessionClass;
  })();
  return loaded;
}

/** Whether the package can be loaded here (tests skip, or fail in CI, without it). */
export async function chdbAvailable(): Promise<boolean> {
  return chdbSessionClass().then(
    () => true,
    () => false,
  );
}

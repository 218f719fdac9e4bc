import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config';

const KEY_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/** The data directory's key for sealed secrets: created once (0600), kept out of the log. */
export function loadSecretKey(dataDir: string): Buffer {
  const path = join(dataDir, 'secrets.key');
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(path, randomBytes(KEY_BYTES).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
}

/**
 * The sealing key SECRET_KEY names (the key itself, or a file holding it); undefined when unset, and
 * the runtime then uses the data directory's own (created once the directory is known to be usable).
 * A shared event log refuses the latter: processes with their own data directories would each seal
 * with a key the others cannot open. Errors never show the value.
 */
export function resolveSecretKey(options: { configured?: string; shared: boolean }): Buffer | undefined {
  const { configured } = options;
  if (configured === undefined) {
    if (options.shared) {
      throw new ConfigError(
        'SECRET_KEY is required with a shared event log: every process must seal and open destination secrets with one key ' +
          '(32 random bytes in base64, e.g. `openssl rand -base64 32`, or the path of a file holding them)',
      );
    }
    return undefined;
  }
  if (BASE64.test(configured)) return Buffer.from(configured, 'base64');
  if (existsSync(configured) && statSync(configured).isFile()) {
    const text = readFileSync(configured, 'utf8').trim();
    if (BASE64.test(text)) return Buffer.from(text, 'base64');
    throw new ConfigError('SECRET_KEY names a file that does not hold 32 bytes in base64');
  }
  throw new ConfigError('SECRET_KEY is neither 32 bytes in base64 nor the path of a file holding them');
}

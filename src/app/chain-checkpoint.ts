import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A point of the log's hash chain that `verify` checked and signed with the service's secret key
 * (HMAC-SHA256 under a key derived from it, so the sealing key itself signs nothing). A later
 * verify checks that the chain still passes through it: a log rewritten before that point with
 * every later hash recomputed (which the chain alone cannot show) no longer does. Kept in the data
 * directory; whoever holds the secret key can forge one, as they could open every sealed secret.
 */
export interface ChainCheckpoint {
  position: number;
  hash: string;
  signedAt: string;
}

const FILE = 'chain-checkpoint.json';

export class CheckpointSignatureError extends Error {
  override name = 'CheckpointSignatureError';
}

function signature(key: Buffer, c: ChainCheckpoint): string {
  const signingKey = createHmac('sha256', key).update('eventful chain checkpoint v1').digest();
  return createHmac('sha256', signingKey).update(`${c.position}\n${c.hash}\n${c.signedAt}`).digest('hex');
}

export function signCheckpoint(key: Buffer, c: ChainCheckpoint): ChainCheckpoint & { signature: string } {
  return { ...c, signature: signature(key, c) };
}

/** The checkpoint signed last, or null; a file that is not one verify signed with this key throws. */
export function readCheckpoint(dataDir: string, key: Buffer): ChainCheckpoint | null {
  const path = join(dataDir, FILE);
  if (!existsSync(path)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new CheckpointSignatureError(`${path} is not a chain checkpoint (not JSON)`);
  }
  const p = parsed as Partial<ChainCheckpoint & { signature: string }>;
  if (typeof p.position !== 'number' || typeof p.hash !== 'string' || typeof p.signedAt !== 'string' || typeof p.signature !== 'string') {
    throw new CheckpointSignatureError(`${path} is not a chain checkpoint`);
  }
  const c = { position: p.position, hash: p.hash, signedAt: p.signedAt };
  const expected = Buffer.from(signature(key, c), 'hex');
  const given = Buffer.from(p.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new CheckpointSignatureError(`${path}: the signature does not match (the file was edited, or signed with another secret key)`);
  }
  return c;
}

export function writeCheckpoint(dataDir: string, key: Buffer, c: ChainCheckpoint): void {
  const path = join(dataDir, FILE);
  writeFileSync(`${path}.tmp`, JSON.stringify(signCheckpoint(key, c), null, 2) + '\n', { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

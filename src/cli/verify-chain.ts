import { loadConfig } from '../config';
import type { Runtime } from '../app';
import { readCheckpoint, writeCheckpoint } from '../app/chain-checkpoint';
import { loadSecretKey, resolveSecretKey } from '../app/secret-key';
import { verifyChain, type ChainReport } from '../app/verify-chain';
import { progressBar } from './progress';

export interface ChainCheckOptions {
  /** Start after the checkpoint verify signed last instead of from the log's start. */
  sinceCheckpoint?: boolean;
  json?: boolean;
}

/** The key the runtime seals with: SECRET_KEY, or the data directory's own. */
function serviceKey(runtime: Runtime, dataDir: string): Buffer {
  const config = loadConfig();
  return resolveSecretKey({ configured: config.SECRET_KEY, shared: runtime.logSpec.kind !== 'sqlite' }) ?? loadSecretKey(dataDir);
}

/**
 * verify's first step: the log's hash chain, from the start (or from the checkpoint it signed
 * last), through that checkpoint. Prints what it found; on success signs the head as the new
 * checkpoint. Returns whether the chain holds.
 */
export async function chainCheck(runtime: Runtime, dataDir: string, options: ChainCheckOptions = {}): Promise<{ ok: boolean; report: ChainReport }> {
  const key = serviceKey(runtime, dataDir);
  const checkpoint = readCheckpoint(dataDir, key);
  const bar = progressBar('verify chain', 'records');
  const report = await verifyChain(runtime.rawLog, {
    checkpoint,
    sinceCheckpoint: options.sinceCheckpoint,
    onProgress: (position, head, checked) => bar.update(checked, head > 0 ? position / head : 1),
  });
  bar.done(report.checked, 1);
  if (report.ok && report.head.hash !== null && report.head.position > 0) {
    writeCheckpoint(dataDir, key, { position: report.head.position, hash: report.head.hash, signedAt: new Date().toISOString() });
  }
  if (!options.json) process.stdout.write(describeChain(report));
  return { ok: report.ok, report };
}

export function describeChain(r: ChainReport): string {
  const lines: string[] = [];
  if (r.unchained) {
    lines.push(
      `chain: ${r.unchained.count} record(s) up to position ${r.unchained.lastPosition} precede the chain (appended before the upgrade that added it) and are not covered by it`,
    );
    lines.push(r.chainStart === null ? 'chain: starts with the next append' : `chain: starts at position ${r.chainStart}`);
  }
  if (r.checkpoint) {
    const where = `the checkpoint verify signed at ${r.checkpoint.signedAt} (position ${r.checkpoint.position}, ${r.checkpoint.hash.slice(0, 16)}…)`;
    lines.push(r.from === 'checkpoint' ? `chain: checked from ${where}` : r.checkpoint.passed ? `chain: passes through ${where}` : `chain: does not pass through ${where}`);
  }
  if (r.failure) lines.push(`chain BROKEN at position ${r.failure.position}: ${r.failure.reason}`);
  else lines.push(`chain ok: ${r.checked} record(s) checked, head position ${r.head.position}, hash ${r.head.hash ?? '(none yet)'}`);
  return lines.join('\n') + '\n';
}

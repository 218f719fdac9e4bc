import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's CPU priority to `nice` (0..19). On Linux a thread's id is a valid
 * target of setpriority, so only this thread changes, not the process; elsewhere (no
 * /proc/thread-self) nothing changes. Returns whether it took effect.
 */
export function niceThisThread(nice: number): boolean {
  if (nice <= 0) return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, Math.min(19, nice));
    return true;
  } catch {
    return false;
  }
}

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ImportState {
  source: string;
  line: number;
  offset: number;
  events: number;
  skipped: number;
  /** Events the ingestion pipeline refused (stored as ingestion warnings, not as events). */
  warnings: number;
}

/** Where an import stands, saved after every committed batch so an interrupted import resumes. */
export function importStateStore(dataDir: string, source: string) {
  const dir = join(dataDir, 'imports');
  const path = join(dir, `${createHash('sha1').update(source).digest('hex').slice(0, 16)}.json`);
  return {
    path,
    load(): ImportState | null {
      try {
        const state = JSON.parse(readFileSync(path, 'utf8')) as ImportState;
        return state.source === source ? state : null;
      } catch {
        return null;
      }
    },
    save(state: ImportState) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(`${path}.tmp`, JSON.stringify(state));
      renameSync(`${path}.tmp`, path);
    },
  };
}

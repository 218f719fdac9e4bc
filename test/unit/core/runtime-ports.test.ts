import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/child';

const runtimeDir = join(repoRoot, 'src/runtime');
const files = (readdirSync(runtimeDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(runtimeDir, f));
const IMPORT = /^import\s+(type\s+)?[^'"]*from\s+'([^']+)'/gm;

/** Every import of an adapter by a runtime file: `file: [type ]specifier`. */
function adapterImports(): string[] {
  return files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)]
      .filter(([, , spec]) => /\/store\/sqlite\/|\/adapters\//.test(spec))
      .map(([, type, spec]) => `${relative(repoRoot, file)}: ${type ? 'type ' : ''}${spec}`),
  );
}

describe('the runtime depends on ports only', () => {
  it('no file under src/runtime/ imports an adapter (the read-model type is the one pending exception)', () => {
    expect(files.length).toBeGreaterThan(5);
    // The read-model port (issue 13, a later step) replaces these type-only imports of SqliteDatabase.
    const pending = ['src/runtime/cached-store.ts', 'src/runtime/digest.ts', 'src/runtime/projection-runner.ts', 'src/runtime/quarantine.ts'].map(
      (f) => `${f}: type ../store/sqlite/open`,
    );
    expect(adapterImports().sort()).toEqual(pending);
  });
});

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
  it('no file under src/runtime/ imports an adapter', () => {
    expect(files.length).toBeGreaterThan(5);
    expect(adapterImports()).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const fixture = join(root, 'test/unit/projections/typed-projection.fixture.ts');
const source = readFileSync(fixture, 'utf8');
const DIRECTIVE = /\/\/ @ts-expect-error (TS\d+):/g;

const { options } = ts.parseJsonConfigFileContent(ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, root);

/** The fixture's diagnostics as `line: TScode`, compiled from `text` instead of the file on disk. */
function diagnose(text: string, old?: ts.Program): { program: ts.Program; errors: string[] } {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    resolve(name) === fixture ? ts.createSourceFile(name, text, language) : read(name, language, ...rest);
  const program = ts.createProgram([fixture], options, host, old);
  const errors = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName === fixture ? '' : `${d.file.fileName} `}${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '?';
    return `${where}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ').slice(0, 160)}`;
  });
  return { program, errors };
}

/** The line after each directive, with the error code it names. */
const expected = [...source.matchAll(DIRECTIVE)].map((m) => `${source.slice(0, m.index).split('\n').length + 1}: ${m[1]}`);

describe('typed projections (compile-time)', () => {
  it('the fixture names its rejections', () => {
    expect(expected.length).toBe(9);
  });

  it('tsc rejects each marked line of the fixture for the reason it names, and nothing else', () => {
    // As written: a directive left unused (a type loosened) is itself an error.
    const written = diagnose(source);
    expect(written.errors).toEqual([]);
    // Without the directives: exactly the marked lines fail, with the errors they name.
    const bare = diagnose(source.replace(DIRECTIVE, '// expected $1:'), written.program);
    expect(bare.errors.map((e) => e.split(' ', 2).join(' '))).toEqual(expected);
  });
});

// `--store postgres`, accepted anywhere among a bench's arguments: the benches that take it add the
// PostgreSQL figures to the SQLite ones; the positional arguments keep their order without it.
export function storeArgs(argv: string[] = process.argv.slice(2)): { withPostgres: boolean; args: string[] } {
  const at = argv.indexOf('--store');
  if (at < 0) return { withPostgres: false, args: argv };
  if (argv[at + 1] !== 'postgres') throw new Error(`--store ${argv[at + 1] ?? ''}: the only store to add is postgres`);
  return { withPostgres: true, args: argv.filter((_, i) => i !== at && i !== at + 1) };
}

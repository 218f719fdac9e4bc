/** The "Example(s):" block every command's --help ends with; `lines` are what follows `npm run -s cli --`. */
export const examples = (...lines: string[]): string => `\n${lines.length > 1 ? 'Examples' : 'Example'}:\n${lines.map((l) => `  $ npm run -s cli -- ${l}`).join('\n')}`;

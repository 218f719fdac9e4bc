import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The arguments `npm start` gives node (its flags, then the built entry point), from package.json. */
export function npmStartArgs(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.replace(/^exec /, '').split(' ').slice(1);
}

/** The arguments `npm run cli -- ...rest` gives node: the built CLI (dist/ is built by globalSetup). */
export const cliArgs = (rest: string[]): string[] => ['dist/cli.js', ...rest];

/** Runs the built CLI as `npm run cli` does, collecting its stdout lines. */
export function runCli(rest: string[], env: Record<string, string> = {}) {
  return runNode(cliArgs(rest), env);
}

/** Runs a TypeScript file in a child Node process (through tsx), collecting its stdout lines. */
export function runTs(file: string, args: string[] = [], env: Record<string, string> = {}) {
  return runNode(['--import', 'tsx', file, ...args], env);
}

/** Runs the production build as `npm start` does, minus the npm client (dist/ is built by globalSetup). */
export function runBuilt(env: Record<string, string> = {}) {
  return runNode(npmStartArgs(), env);
}

/** Runs node with `args` in the repository, collecting its stdout lines. */
export function runNode(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buffer = '';
  let stderr = '';
  const listeners = new Set<(line: string) => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let i;
    while ((i = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      lines.push(line);
      for (const l of listeners) l(line);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    /** Resolves with the first line matching, rejects if the process exits first. */
    waitForLine(pred: (line: string) => boolean, timeoutMs = 30_000): Promise<string> {
      const found = lines.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timeout waiting for line; stderr: ${stderr}`)), timeoutMs);
        const l = (line: string) => {
          if (pred(line)) {
            clearTimeout(timer);
            listeners.delete(l);
            resolve(line);
          }
        };
        listeners.add(l);
        exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`child exited before the line; stderr: ${stderr}`));
        });
      });
    },
  };
}

export function kill9(child: ChildProcess) {
  child.kill('SIGKILL');
}

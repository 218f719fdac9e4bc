/**
 * The process's outputs must never kill it: a log line that cannot be written (stdout piped to a
 * reader that went away, redirected to a full disk, a closed descriptor) is dropped, and the
 * service goes on serving. Without a listener, such a stream's 'error' is an uncaught exception.
 */
let stdoutBroken = false;

export function guardProcessOutputs(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (stdoutBroken) return;
    stdoutBroken = true;
    try {
      process.stderr.write(`warning: log output failed (${err.code ?? err.message}); log lines are dropped from now on\n`);
    } catch {
      // stderr failing too leaves nothing to tell.
    }
  });
  process.stderr.on('error', () => {});
}

/** Where the server's logger writes: stdout while it works, nowhere once it has failed. */
export const logDestination = {
  write(line: string): void {
    if (!stdoutBroken) process.stdout.write(line);
  },
};

import { DestinationError, nonRetryableError, retryableError } from '../destination';
import { describeError } from '../network-errors';
import { PathRefusedError } from '../../policy';

/** Conditions that can clear up on their own (space freed, descriptors released, disk back). */
const TRANSIENT_FS_CODES = new Set(['ENOSPC', 'EMFILE', 'ENFILE', 'EBUSY', 'EAGAIN', 'EIO']);

export function toFileError(err: unknown, root: string): DestinationError {
  if (err instanceof DestinationError) return err;
  if (err instanceof PathRefusedError) return nonRetryableError(`File export refused: ${err.message}`);
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const message = `Could not write export files under ${root}: ${describeError(err)}`;
  return code && TRANSIENT_FS_CODES.has(code) ? retryableError(message, err) : nonRetryableError(message, err);
}

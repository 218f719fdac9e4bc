import { ConcurrencyConflictError } from './command-handler';
import { DomainError } from '../errors';

/**
 * Integer ids without gaps or collisions: the aggregate's stream (`project-7`) is created with
 * expected revision "no stream", so of two concurrent creators of 7 one fails and moves on to 8.
 * An id is only used once its stream exists, so a failed create leaves no hole.
 */
export async function withNextId<T>(firstGuess: number, create: (id: number) => Promise<T>, maxTries = 50): Promise<T> {
  let id = firstGuess;
  for (let i = 0; i < maxTries; i++, id++) {
    try {
      return await create(id);
    } catch (err) {
      const taken = err instanceof ConcurrencyConflictError || (err instanceof DomainError && err.kind === 'conflict');
      if (!taken) throw err;
    }
  }
  throw new Error(`no free id found after ${maxTries} tries from ${firstGuess}`);
}

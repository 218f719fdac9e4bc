import { describe, expect, it } from 'vitest';
import { toApiError } from '../../../src/http/errors';
import { ConcurrencyConflictError } from '../../../src/runtime/command-handler';
import { conflict, notFound, validationError } from '../../../src/errors';

describe('error mapping', () => {
  it('maps domain errors to statuses and the Django-style body', () => {
    expect(toApiError(validationError('Bad name.', 'name'))).toMatchObject({
      status: 400,
      body: { type: 'validation_error', code: 'invalid_input', detail: 'Bad name.', attr: 'name' },
    });
    expect(toApiError(notFound()).status).toBe(404);
    expect(toApiError(conflict('taken')).status).toBe(409);
    expect(toApiError(new ConcurrencyConflictError('s', 5))).toMatchObject({ status: 409, body: { code: 'write_conflict' } });
    expect(toApiError(new Error('boom'))).toMatchObject({ status: 500, body: { detail: 'A server error occurred.' } });
  });
});

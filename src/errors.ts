/**
 * Errors the domain raises; the HTTP layer maps each kind to one status and the Django-style body.
 * `attr` names the offending field for validation errors.
 */
export type DomainErrorKind = 'validation' | 'not_found' | 'conflict' | 'permission' | 'authentication';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly attr: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const validationError = (detail: string, attr: string | null = null, code = 'invalid_input') =>
  new DomainError('validation', detail, attr, code);
export const notFound = (detail = 'Not found.') => new DomainError('not_found', detail, null, 'not_found');
export const conflict = (detail: string) => new DomainError('conflict', detail, null, 'conflict');
export const permissionDenied = (detail: string) => new DomainError('permission', detail, null, 'permission_denied');

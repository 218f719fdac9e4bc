export { buildApp } from './app';
export { ApiError, toApiError, type ErrorBody } from './errors';
export { pageEnvelope, type Page } from './pagination';
export { hasScope, type AuthContext } from './auth';

export { AccessService, type AccessDeps, type CreatedKey } from './service';
export { bootstrap, type Credentials } from './bootstrap';
export { hashKey, maskKey, newPersonalKey, newProjectToken } from './tokens';
export * from './deciders';

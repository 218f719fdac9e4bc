export { RemoteConfigCache } from './cache';
export { settingsFields, SUPPORTED_COMPRESSION } from './fields';
export { configJson, configScript } from './documents';

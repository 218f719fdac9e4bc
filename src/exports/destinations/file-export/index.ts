export { exportToFiles } from './export-to-files';
export { FileNaming, PREFIX_PLACEHOLDERS, pythonIsoFormat, renderPrefix } from './keys';
export type { ObjectStore, ObjectUpload } from './object-store';
export { checkCompression, fileExportFields } from './settings';
export type { FileExportSettings } from './settings';

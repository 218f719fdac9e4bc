import type { Properties } from './properties';

/** A person as the fold works on it; `properties` is parsed only when the fold needs them. */
export interface Person {
  uuid: string;
  projectId: number;
  properties: Properties;
  createdAt: string;
  isIdentified: boolean;
  version: number;
}

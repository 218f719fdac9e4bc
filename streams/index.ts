import { ContractRegistry } from './registry';
import { organizationEvents } from './organization';
import { projectEvents } from './project';
import { userEvents } from './user';
import { personalApiKeyEvents } from './personal-api-key';
import { ingestEvents } from './ingest';
import { featureFlagEvents } from './feature-flag';
import { experimentEvents } from './experiment';
import { cohortEvents } from './cohort';
import { allBatchExportEvents } from './batch-export';
import { recordingEvents } from './recording';
import { surveyEvents } from './survey';
import { earlyAccessFeatureEvents } from './early-access-feature';
import { experimentSavedMetricEvents } from './experiment-saved-metric';
import { actionEvents } from './action';

export * from './contract';
export * from './registry';
export * from './organization';
export * from './project';
export * from './user';
export * from './personal-api-key';
export * from './ingest';
export * from './feature-flag';
export * from './experiment';
export * from './cohort';
export * from './batch-export';
export * from './recording';
export * from './survey';
export * from './early-access-feature';
export * from './experiment-saved-metric';
export * from './action';

/** Every event contract of the product; the log validates appends against this. */
export const allContracts = [...organizationEvents, ...projectEvents, ...userEvents, ...personalApiKeyEvents, ...ingestEvents, ...featureFlagEvents, ...experimentEvents, ...cohortEvents, ...allBatchExportEvents, ...recordingEvents, ...surveyEvents, ...earlyAccessFeatureEvents, ...experimentSavedMetricEvents, ...actionEvents];

export const contracts = new ContractRegistry(allContracts);

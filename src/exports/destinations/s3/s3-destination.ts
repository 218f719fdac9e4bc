import { policyOf, type Destination } from '../destination';
import { exportToFiles } from '../file-export';
import { endpointHost, s3ConfigSchema, type S3Config } from './s3-config';
import { toS3Error } from './s3-errors';

/** The AWS SDK (a large module graph) is loaded by the first S3 export, not at start-up. */
const loadClient = () => Promise.all([import('./s3-client'), import('./s3-store')]);

export const s3Destination: Destination<S3Config> = {
  type: 'S3',
  configSchema: s3ConfigSchema,
  secretFields: ['aws_access_key_id', 'aws_secret_access_key'],
  targetFields: ['bucket_name', 'endpoint_url', 'region'],
  async checkTarget(config, policy) {
    const host = endpointHost(config);
    if (host) await policy.network.checkHost(host);
  },
  async write(config, ctx, batches) {
    const { network } = policyOf(ctx);
    const host = endpointHost(config);
    if (host) network.checkLiteral(host);
    const [{ createS3Client }, { S3Store }] = await loadClient();
    const client = createS3Client(config, network);
    try {
      return await exportToFiles(config, ctx, batches, new S3Store(client, config));
    } catch (err) {
      throw toS3Error(err, config.bucket_name);
    } finally {
      client.destroy();
    }
  },
};

/** SECRET_KEY for services on a shared event log in tests (32 bytes, base64). */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

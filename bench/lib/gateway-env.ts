/** The environment the bench controls; anything pointing at real infrastructure is dropped. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, API_KEY: _k, PORT: _p, HOST: _h, BLOB_STORE: _b, ...rest } = process.env;
  return { ...rest, ...extra };
}

/** The gateway every throughput case runs: `npm start`'s environment, on the embedded database under `dataDir`. */
export const benchGatewayEnv = (dataDir: string, adminKey: string): NodeJS.ProcessEnv =>
  childEnv({
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_API_KEY: adminKey,
    API_RATE_LIMIT: '1000000000',
    // Throughput cases measure the gateway, not its fair-use budgets (the fair-use case sets its own).
    TTS_CHARS_PER_MINUTE: '1000000000',
    TTS_MAX_CONCURRENT_PER_CLIENT: '1000',
    TTS_MAX_CONCURRENT_GENERATIONS: '1000',
    TTS_ADMISSION_QUEUE: '100000',
    LOG_LEVEL: 'warn',
    MOCK_LATENCY_MS: '200',
    BENCH_COUNT_SQL: '1',
    // As `npm start` runs it (package.json, README "Configuration").
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
  });

/**
 * Two projects: `unit` needs no service (no PostgreSQL, no Temporal server) and runs in seconds
 * (`make test-unit`); `integration` runs against the real PostgreSQL and Temporal that its globalSetup
 * starts. `make test` runs both. test/unit and test/integration each mirror the source tree.
 */
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/test/bench/'],
  transform: {
    '^.+\\.(t|j|mj)s$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  // ESM-only packages are compiled to CommonJS for jest's module loader (Node itself can require them).
  transformIgnorePatterns: [
    '/node_modules/(?!(@toon-format|jose|gpt-tokenizer|fast-check|pure-rand|music-metadata|strtok3|token-types|peek-readable|file-type|uint8array-extras|@tokenizer|ms|@borewit|win-guid|media-typer)/)',
  ],
  // Packages that publish only ESM entry points: point jest's CommonJS resolver at their files.
  moduleNameMapper: {
    '^file-type$': '<rootDir>/node_modules/file-type/index.js',
    '^music-metadata$': '<rootDir>/node_modules/music-metadata/lib/index.js',
  },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  // The service's logs are silent in tests (LOG_LEVEL from test/support/config.ts); a test that expects
  // an error line captures it (test/support/logs.ts) and asserts on it.
  setupFiles: ['<rootDir>/test/support/setup.ts'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...shared, displayName: 'unit', roots: ['<rootDir>/test/unit'] },
    {
      ...shared,
      displayName: 'integration',
      roots: ['<rootDir>/test/integration'],
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
    },
  ],
  testTimeout: 60000,
  maxWorkers: 2,
  // A test file that runs the worker loads the speech and diarization models into its own module
  // registry, and their native memory is freed only when the process ends: recycle a worker whose heap
  // has grown past this after a file, so no worker accumulates every file's models (and its exit, which
  // frees them, stays within jest's grace period instead of being forced).
  workerIdleMemoryLimit: '512MB',
};

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/test/bench/'],
  transform: {
    '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  // ESM-only packages are compiled to CommonJS for jest's module loader (Node itself can require them).
  transformIgnorePatterns: ['/node_modules/(?!(@toon-format|jose|gpt-tokenizer|fast-check|pure-rand|music-metadata|strtok3|token-types|peek-readable|file-type|uint8array-extras|@tokenizer|ms|@borewit|win-guid|media-typer)/)'],
  // Packages that publish only ESM entry points: point jest's CommonJS resolver at their files.
  moduleNameMapper: {
    '^file-type$': '<rootDir>/node_modules/file-type/index.js',
    '^music-metadata$': '<rootDir>/node_modules/music-metadata/lib/index.js',
  },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};

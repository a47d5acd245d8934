// ESLint 9 flat config, run by `make lint` (npx eslint . --max-warnings 0). typescript-eslint's
// recommended set without type information (the type-checked sets are too slow on two cores), one
// type-aware rule (no-floating-promises) on workflows/ and services/core/, plus Temporal's workflow
// rules for the deterministic workflow files: see WORKFLOW_FILES below.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The files bundled into Temporal's workflow sandbox: no I/O, no Node, nothing non-deterministic. */
const WORKFLOW_FILES = ['workflows/*.ts'];
/** client.ts runs in the API pods (it implements core's workflow port); activities/ do the I/O. */
const NOT_WORKFLOW_FILES = ['workflows/client.ts', 'workflows/activities/**'];

const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_'));
const SANDBOX = 'is not available in (or not deterministic inside) the workflow sandbox';

const workflowImports = {
  paths: [
    ...NODE_BUILTINS.map((name) => ({
      name,
      message: `Node's ${name} ${SANDBOX}: do I/O in an activity.`,
      allowTypeImports: true,
    })),
    ...[
      'knex',
      'pg',
      'undici',
      'express',
      'pino',
      'prom-client',
      'jose',
      'file-type',
      'music-metadata',
      'testcontainers',
    ].map((name) => ({
      name,
      message: `${name} does I/O: call it from an activity (workflows/activities/).`,
      allowTypeImports: true,
    })),
    ...['@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing'].map((name) => ({
      name,
      message: `${name} is not for workflow code: use @temporalio/workflow (and @temporalio/common).`,
      allowTypeImports: true,
    })),
  ],
  patterns: [
    { regex: '^node:', message: `Node built-ins ${SANDBOX}: do I/O in an activity.`, allowTypeImports: true },
    {
      regex: '^(pg-.*|@modelcontextprotocol/.*|@apollo/.*|@testcontainers/.*|knex/.*|pg/.*)$',
      message: 'An I/O package: call it from an activity (workflows/activities/).',
      allowTypeImports: true,
    },
    {
      // services/core/live/protocol is pure (types, constants, the live state machine's rules).
      regex: '^(\\.\\./)+services/(?!core/live/protocol$)',
      message:
        'Workflow code imports services/ for types only (import type), except the pure services/core/live/protocol.',
      allowTypeImports: true,
    },
    {
      regex: '^\\./activities(/|$)',
      message: 'A workflow reaches activities through proxyActivities; import their types only (import type).',
      allowTypeImports: true,
    },
    {
      regex: '^\\./client$',
      message: 'workflows/client.ts is the Temporal client side (API pods), not workflow code.',
      allowTypeImports: true,
    },
  ],
};

const DETERMINISM = 'is not deterministic in a workflow';
const workflowGlobals = [
  ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'].map((name) => ({
    name,
    message: `${name} ${DETERMINISM}: use sleep() or condition() from @temporalio/workflow.`,
  })),
  { name: 'fetch', message: `fetch ${DETERMINISM}: do I/O in an activity.` },
  { name: 'process', message: `process ${SANDBOX}: pass values in the workflow input.` },
  { name: 'require', message: `require ${SANDBOX}: use a static import.` },
  { name: 'crypto', message: `crypto ${DETERMINISM}: use uuid4() from @temporalio/workflow.` },
  {
    name: 'performance',
    message: `performance ${DETERMINISM}: use Date (deterministic in the sandbox) or workflowInfo().`,
  },
  { name: 'WeakRef', message: `WeakRef ${DETERMINISM}.` },
  { name: 'FinalizationRegistry', message: `FinalizationRegistry ${DETERMINISM}.` },
];
const workflowSyntax = [
  {
    selector: "CallExpression[callee.property.name='randomUUID']",
    message: `randomUUID ${DETERMINISM}: use uuid4() from @temporalio/workflow.`,
  },
  {
    selector:
      'MemberExpression[object.name=/^(globalThis|global|window|self)$/][property.name=/^(setTimeout|setInterval|setImmediate|fetch|process|require|crypto|performance)$/]',
    message: `This global ${DETERMINISM} (or is not in the sandbox); see the no-restricted-globals messages.`,
  },
  { selector: 'ImportExpression', message: `import() ${SANDBOX}: use a static import.` },
];

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.tools/',
      '.dev/',
      '.test-data/',
      'charts/',
      'k8s/',
      'bin/',
      'docs/',
      '**/*.cjs',
      '**/*.mjs',
      '**/*.js',
    ],
  },
  {
    linterOptions: {
      // A few files keep `eslint-disable-next-line no-console` notes from before this config; no-console is
      // not enabled, and stale notes are harmless, so they are not reported.
      reportUnusedDisableDirectives: 'off',
    },
  },
  {
    files: ['services/**/*.ts', 'workflows/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // The validators match control characters on purpose (NUL, C0 controls, lone surrogates).
      'no-control-regex': 'off',
    },
  },
  {
    // Tests and scripts read loosely typed rows and GraphQL payloads, and load some code lazily with require().
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The cli loads each role's code only when it runs (an mcp pod never loads Apollo or the worker).
    files: ['services/cli/**/*.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // A promise nobody awaits loses its error (an unhandled rejection) and its ordering: in a workflow a
    // step that silently runs in the background, in core a write that may land after the answer. The one
    // type-aware rule, on the code where that matters, so the rest of the lint stays fast: await it, or
    // mark a deliberate fire-and-forget with `void` and say why in a comment.
    files: ['workflows/**/*.ts', 'services/core/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    files: WORKFLOW_FILES,
    ignores: NOT_WORKFLOW_FILES,
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', workflowImports],
      'no-restricted-globals': ['error', ...workflowGlobals],
      'no-restricted-syntax': ['error', ...workflowSyntax],
    },
  },
  {
    // A core domain's index.ts is its API: it names what it exports, so a new file's exports are not public by accident.
    files: ['services/core/*/index.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration',
          message: "A domain's index.ts names its exports: export { ... } from './file'.",
        },
      ],
    },
  },
);

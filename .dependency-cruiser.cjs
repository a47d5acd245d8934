/**
 * Import boundaries, checked by `make lint` (npx depcruise --config .dependency-cruiser.cjs services workflows)
 * and by test/unit/lint/boundaries.test.ts. Layers, lowest first; a layer imports only layers below it:
 *
 *   services/platform      config, db, errors, sealing, logger, metrics, http, temporal client factory, migrations
 *   services/net           guarded outbound fetch, address policy
 *   services/intelligence  captions, media detection, ASR, analytics, summarizer
 *   services/core          domain folders (each entered through its index.ts) and the root files
 *   workflows              contracts.ts (pure), client.ts (core's workflow port), activities/ (I/O), workflow files
 *   transports             services/mcp, services/graphql, services/oauth, services/web (the mcp app mounts oauth
 *                          and web's pages; web uses oauth's sign-in)
 *   top                    services/worker < services/cli < services/devstack (cli's `serve` starts the worker role)
 *
 * Each layer's rule lists what it may import (so a new folder is above it); a new folder under services/
 * must be placed in a layer here (rule every-folder-in-a-layer).
 *
 * Type-only imports (`import type`) are seen (tsPreCompilationDeps) and count for the layers, but not
 * for no-circular: a cycle is a problem only when it is one at run time.
 */
const TOP = '^services/(worker|cli|devstack)/';
const TRANSPORTS = '^services/(mcp|graphql|oauth|web)/';
const OURS = '^(services|workflows)/';
const KNOWN = '^services/(platform|net|intelligence|core|mcp|graphql|oauth|web|worker|cli|devstack)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A run-time import cycle (type-only imports excluded): split the shared part into a module both import.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'platform-is-the-bottom',
      severity: 'error',
      comment: 'services/platform imports no other layer of ours.',
      from: { path: '^services/platform/' },
      to: { path: OURS, pathNot: '^services/platform/' },
    },
    {
      name: 'net-over-platform-only',
      severity: 'error',
      comment: 'services/net imports only services/platform.',
      from: { path: '^services/net/' },
      to: { path: OURS, pathNot: '^services/(platform|net)/' },
    },
    {
      name: 'intelligence-under-core',
      severity: 'error',
      comment: 'services/intelligence imports only services/platform and services/net.',
      from: { path: '^services/intelligence/' },
      to: { path: OURS, pathNot: '^services/(platform|net|intelligence)/' },
    },
    {
      name: 'core-under-workflows-and-transports',
      severity: 'error',
      comment: 'services/core reaches workflows through its port (core/ports/workflows.ts), never by import.',
      from: { path: '^services/core/' },
      to: { path: OURS, pathNot: '^services/(platform|net|intelligence|core)/' },
    },
    {
      name: 'workflows-under-transports',
      severity: 'error',
      comment: 'workflows/ imports only core, intelligence, net and platform.',
      from: { path: '^workflows/' },
      to: { path: '^services/', pathNot: '^services/(platform|net|intelligence|core)/' },
    },
    {
      name: 'transports-under-top',
      severity: 'error',
      comment: 'The transports do not import worker, cli or devstack.',
      from: { path: TRANSPORTS },
      to: { path: TOP },
    },
    {
      name: 'transports-side-by-side',
      severity: 'error',
      comment: 'graphql and oauth import no other transport (graphql authenticates with API keys).',
      from: { path: '^services/(graphql|oauth)/' },
      to: { path: TRANSPORTS, pathNot: '^services/$1/' },
    },
    {
      name: 'web-over-oauth-only',
      severity: 'error',
      comment: "The pages (services/web) use oauth's sign-in; the mcp app mounts them, not the other way round.",
      from: { path: '^services/web/' },
      to: { path: '^services/(mcp|graphql)/' },
    },
    {
      name: 'mcp-over-oauth-and-web',
      severity: 'error',
      comment: 'The mcp app mounts oauth and the pages (services/web); it never imports graphql.',
      from: { path: '^services/mcp/' },
      to: { path: '^services/graphql/' },
    },
    {
      name: 'transports-use-the-workflow-client',
      severity: 'error',
      comment: "A transport starts and signals workflows through workflows/client.ts only (or core's port).",
      from: { path: TRANSPORTS },
      to: { path: '^workflows/', pathNot: '^workflows/client\\.ts$' },
    },
    {
      name: 'worker-under-cli',
      severity: 'error',
      comment:
        "The worker imports neither the cli nor devstack (the cli's `serve worker` starts the worker, not the reverse).",
      from: { path: '^services/worker/' },
      to: { path: '^services/(cli|devstack)/' },
    },
    {
      name: 'cli-under-devstack',
      severity: 'error',
      comment: 'The cli imports the worker (serve, demo seeding) but not devstack; devstack may import both.',
      from: { path: '^services/cli/' },
      to: { path: '^services/devstack/' },
    },
    {
      name: 'core-domain-through-its-index',
      severity: 'error',
      comment:
        'Outside a core domain, import it through services/core/<domain>/index.ts (workflows may also use the pure ' +
        'services/core/live/protocol.ts). Files of the same domain import each other freely.',
      from: { path: '^(services|workflows)/', pathNot: '^services/core/([^/]+)/' },
      to: {
        path: '^services/core/[^/]+/',
        pathNot: ['^services/core/[^/]+/index\\.ts$', '^services/core/live/protocol\\.ts$'],
      },
    },
    {
      name: 'core-domains-through-each-others-index',
      severity: 'error',
      comment: "One core domain imports another through that domain's index.ts.",
      from: { path: '^services/core/([^/]+)/' },
      to: {
        path: '^services/core/[^/]+/',
        pathNot: ['^services/core/$1/', '^services/core/[^/]+/index\\.ts$', '^services/core/live/protocol\\.ts$'],
      },
    },
    {
      name: 'every-folder-in-a-layer',
      severity: 'error',
      comment: 'A new folder under services/ is placed in a layer of this file before it imports our code.',
      from: { path: '^services/', pathNot: KNOWN },
      to: { path: OURS },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|\\.tools|\\.dev|\\.test-data|charts|k8s)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.cjs', '.mjs', '.json'],
    },
    skipAnalysisNotInRules: true,
    reporterOptions: { text: { highlightFocused: true } },
  },
};

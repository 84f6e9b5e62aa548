/**
 * The layer rules of ARCHITECTURE.md § Layers, as code: `npm run deps` (in CI) fails on an
 * import that crosses a layer, and prints the rule's reason. Paths are folders of src/; a
 * package is matched by its name under node_modules (or as written, when it is not installed).
 */
const pkg = (...names) => `(^|node_modules/)(${names.join('|')})($|/)`;
const src = (...folders) => `^src/(${folders.join('|')})/`;

/** `folder` imports none of `layers` (folders of src/) and none of `packages`. */
const layerForbids = (name, comment, folder, layers, packages) => ({
  name,
  comment,
  severity: 'error',
  from: { path: src(folder) },
  to: { path: [src(...layers), pkg(...packages)] },
});

/** `folder` ships in the browser: no Node built-ins. */
const browserSafe = (folder, comment) => ({
  name: `${folder}-is-browser-safe`,
  comment,
  severity: 'error',
  from: { path: src(folder) },
  to: { dependencyTypes: ['core'] },
});

/** Of src/, `folder` imports only itself and `allowed` (folders). */
const layerImportsOnly = (name, comment, folder, allowed) => ({
  name,
  comment,
  severity: 'error',
  from: { path: src(folder) },
  to: { path: '^src/', pathNot: [`^src/${folder}/`, src(...allowed)] },
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    layerForbids(
      'core-is-neutral',
      'src/core is shared by the browser client and the server: it imports no other layer and no ky, React, Redis, msw or Hono, so every entry can carry it.',
      'core',
      ['client', 'server', 'react', 'redis', 'postgres', 'testing', 'msw', 'ai'],
      ['ky', 'react', 'react-dom', 'redis', '@redis/[^/]+', 'msw', '@hono/[^/]+', 'ai'],
    ),

    browserSafe('core', 'src/core ships in the browser client (answer-once): no Node built-ins.'),

    layerForbids(
      'client-is-a-client',
      'src/client is the browser entry (answer-once): it never imports the server, Redis, React or msw code, so a bundle of createClient carries none of it.',
      'client',
      ['server', 'redis', 'react', 'msw', 'ai'],
      ['react', 'react-dom', 'redis', '@redis/[^/]+', 'msw', '@hono/[^/]+'],
    ),

    browserSafe('client', 'src/client runs in browsers: no Node built-ins.'),

    layerForbids(
      'server-stands-alone',
      'src/server (answer-once/server) runs on any Fetch runtime without the client, Redis or React: stores plug in through its IdempotencyStore interface.',
      'server',
      ['client', 'redis', 'postgres', 'testing', 'react', 'msw', 'ai'],
      ['ky', 'react', 'react-dom', 'redis', '@redis/[^/]+', 'msw'],
    ),

    {
      name: 'redis-implements-the-store',
      comment:
        'src/redis (answer-once/redis) is one IdempotencyStore: it may import the store interface (store.ts, stream-store.ts) and errors of src/server and src/core, nothing else of ours.',
      severity: 'error',
      from: { path: src('redis') },
      to: { path: '^src/', pathNot: ['^src/redis/', src('core'), '^src/server/(store|stream-store|errors)\\.ts$'] },
    },
    {
      name: 'postgres-implements-the-store',
      comment:
        'src/postgres (answer-once/postgres) is one IdempotencyStore: it may import the store interface (store.ts, stream-store.ts) of src/server and src/core, nothing else of ours.',
      severity: 'error',
      from: { path: src('postgres') },
      to: { path: '^src/', pathNot: ['^src/postgres/', src('core'), '^src/server/(store|stream-store)\\.ts$'] },
    },
    {
      name: 'testing-specifies-the-store',
      comment:
        'src/testing (answer-once/testing) is the store contract as vitest suites: it may import the store interface (store.ts, stream-store.ts) of src/server, nothing else of ours.',
      severity: 'error',
      from: { path: src('testing') },
      to: { path: '^src/', pathNot: ['^src/testing/', '^src/server/(store|stream-store)\\.ts$'] },
    },
    {
      name: 'pg-only-in-postgres',
      comment: 'node-postgres is an optional peer of answer-once/postgres alone: no other layer imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: src('postgres') },
      to: { path: pkg('pg', 'pg-[^/]+') },
    },
    layerImportsOnly(
      'react-adapts-the-client',
      'src/react (answer-once/react) is a thin adapter over the client: it imports src/client and src/core only.',
      'react',
      ['client', 'core'],
    ),

    layerImportsOnly(
      'msw-mocks-the-server',
      'src/msw (answer-once/msw) runs the reference server inside msw: it imports src/server and src/core only.',
      'msw',
      ['server', 'core'],
    ),

    layerImportsOnly(
      'ai-adapts-the-client',
      'src/ai (answer-once/ai) adapts the client to the AI SDK: it imports src/client and src/core only.',
      'ai',
      ['client', 'core'],
    ),

    {
      name: 'ai-types-only',
      comment: 'src/ai takes only types from the `ai` package, so answer-once/ai adds no runtime dependency on it.',
      severity: 'error',
      from: { path: src('ai') },
      to: { path: pkg('ai', '@ai-sdk/[^/]+'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-specs-in-src',
      comment: 'Tests live in test/ (never under src/), and src/ never imports them.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: ['^test/', '\\.test(-d)?\\.tsx?$'] },
    },
    {
      name: 'tests-live-in-test',
      comment:
        'Every spec lives in test/ (test/node, test/react, test/redis, test/postgres, test/e2e, test/types): nothing under src/ imports vitest but src/testing, the public store contract.',
      severity: 'error',
      from: { path: '^src/', pathNot: src('testing') },
      to: { path: pkg('vitest', '@vitest/[^/]+') },
    },
    {
      name: 'no-circular',
      comment: 'A cycle between modules makes load order matter and hides which one is the lower layer.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve fails at run time in the package.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true, pathNot: pkg('ai', '@ai-sdk/[^/]+') },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

/**
 * The layer rules of ARCHITECTURE.md § Layers, as code: `npm run deps` (in CI) fails on an
 * import that crosses a layer, and prints the rule's reason. Paths are folders of src/; a
 * package is matched by its name under node_modules (or as written, when it is not installed).
 */
const pkg = (...names) => `(^|node_modules/)(${names.join('|')})($|/)`;
const src = (...folders) => `^src/(${folders.join('|')})/`;

/** src/server/`folder` (a folder with its slash, or a file pattern). */
const server = (folder) => `^src/server/${folder}`;

/** The files of src/server every folder shares: the error classes, the event union, the problem+json builder, the usage, SHA-256. */
const SERVER_SHARED = '(errors|events|problem|usage|sha256)\\.ts$';

/**
 * Of src/server, `from` imports only itself, the shared files, and the `allowed` folders
 * (src/core stays open to it).
 */
const serverFolderImportsOnly = (name, comment, from, allowed) => ({
  name,
  comment,
  severity: 'error',
  from: { path: server(from) },
  to: {
    path: '^src/server/',
    pathNot: [server(from), server(SERVER_SHARED), ...allowed.map(server)],
  },
});

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

/** The files of src/redis that the Upstash store runs too: nothing in them may need TCP or Node. */
const UPSTASH_SHARES = '^src/redis/(scripts/|(errors|arguments|operations|log-key|log-reply|reply|shared-reads)\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    layerForbids(
      'core-is-neutral',
      'src/core is shared by the browser client and the server: it imports no other layer and no ky, React, Redis, msw or Hono, so every entry can carry it.',
      'core',
      ['client', 'server', 'react', 'redis', 'postgres', 'testing', 'msw', 'ai', 'ai-server', 'otel'],
      ['ky', 'react', 'react-dom', 'redis', '@redis/[^/]+', 'msw', '@hono/[^/]+', 'ai'],
    ),

    browserSafe('core', 'src/core ships in the browser client (answer-once): no Node built-ins.'),

    layerForbids(
      'client-is-a-client',
      'src/client is the browser entry (answer-once): it never imports the server, Redis, React or msw code, so a bundle of createClient carries none of it.',
      'client',
      ['server', 'redis', 'react', 'msw', 'ai', 'ai-server', 'otel'],
      ['react', 'react-dom', 'redis', '@redis/[^/]+', 'msw', '@hono/[^/]+'],
    ),

    browserSafe('client', 'src/client runs in browsers: no Node built-ins.'),

    {
      name: 'idb-only-in-the-outbox',
      comment:
        'Only src/client/outbox (answer-once/outbox) imports idb: its module runs code when loaded, so anywhere else every bundle of createClient would carry it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/client/outbox/' },
      to: { path: pkg('idb') },
    },
    {
      name: 'the-client-leaves-the-outbox-to-its-entry',
      comment:
        'The client reaches the outbox only through the `outbox` option (its types): a value import would put the outbox, and idb, into answer-once.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/client/outbox/' },
      to: { path: '^src/client/outbox/', dependencyTypesNot: ['type-only'] },
    },

    layerForbids(
      'server-stands-alone',
      'src/server (answer-once/server) runs on any Fetch runtime without the client, Redis or React: stores plug in through its IdempotencyStore interface.',
      'server',
      ['client', 'redis', 'postgres', 'testing', 'react', 'msw', 'ai', 'ai-server', 'otel'],
      ['ky', 'react', 'react-dom', 'redis', '@redis/[^/]+', 'msw'],
    ),

    {
      name: 'redis-implements-the-store',
      comment:
        'src/redis (answer-once/redis) is one IdempotencyStore: of src/server it imports only the store contract (src/server/store/), so a store author reads one folder and the server can change behind it.',
      severity: 'error',
      from: { path: src('redis') },
      to: { path: '^src/', pathNot: ['^src/redis/', src('core'), server('store')] },
    },
    {
      name: 'postgres-implements-the-store',
      comment:
        'src/postgres (answer-once/postgres) is one IdempotencyStore: of src/server it imports only the store contract (src/server/store/), like src/redis.',
      severity: 'error',
      from: { path: src('postgres') },
      to: { path: '^src/', pathNot: ['^src/postgres/', src('core'), server('store')] },
    },
    {
      name: 'upstash-implements-the-store',
      comment:
        'src/upstash (answer-once/upstash) is one IdempotencyStore: of src/server it imports only the store contract, and of src/redis only what runs over any transport (the scripts, their arguments and replies, the errors, shared reads), never its TCP client, pub/sub or the `redis` package.',
      severity: 'error',
      from: { path: src('upstash') },
      to: {
        path: '^src/',
        pathNot: ['^src/upstash/', src('core'), server('store'), UPSTASH_SHARES],
      },
    },
    {
      name: 'upstash-runs-on-the-edge',
      comment:
        'answer-once/upstash is for runtimes without TCP or Node (Vercel Edge, Workers, Deno Deploy): neither it nor the src/redis files it shares import a Node built-in or a Redis client package.',
      severity: 'error',
      from: {
        path: [src('upstash'), UPSTASH_SHARES],
      },
      to: { path: [pkg('redis', '@redis/[^/]+')], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'upstash-needs-no-node',
      comment: 'answer-once/upstash and the src/redis files it shares run where Node built-ins do not exist.',
      severity: 'error',
      from: {
        path: [src('upstash'), UPSTASH_SHARES],
      },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'testing-specifies-the-store',
      comment:
        'src/testing (answer-once/testing) is the store contract as vitest suites: of ours it imports the store contract (src/server/store/) and the public server entry (a store is also proved through runOnce and the handler), so a store author needs nothing else.',
      severity: 'error',
      from: { path: src('testing') },
      to: { path: '^src/', pathNot: ['^src/testing/', server('store'), '^src/server/index\\.ts$'] },
    },
    {
      name: 'pg-only-in-postgres',
      comment: 'node-postgres is an optional peer of answer-once/postgres alone: no other layer imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: src('postgres') },
      to: { path: pkg('pg', 'pg-[^/]+') },
    },

    // Inside src/server: one folder per concept, imports running one way
    // (http → stream → run, format → store; the shared errors, events, problem, usage and sha256 at the top).
    serverFolderImportsOnly(
      'server-shared-stands-alone',
      'src/server/{errors,events,problem,usage,sha256}.ts are what every folder shares (the error classes, the event union, the problem+json builder, the usage a run reports, SHA-256 for fingerprints and step keys): they import none of the folders, so any folder can use them without a cycle.',
      SERVER_SHARED,
      [],
    ),
    serverFolderImportsOnly(
      'store-is-the-contract',
      'src/server/store/ is the contract a store implements (records, answer logs, keys, the store-call deadline): it imports only the shared errors and events, never an implementation or HTTP, because src/redis and other stores import it.',
      'store/',
      [],
    ),
    serverFolderImportsOnly(
      'memory-implements-the-store',
      'src/server/memory/ is the reference store: like any other store it sees only the contract (src/server/store/), so it cannot lean on the handler, the runner or the streaming path.',
      'memory/',
      ['store/'],
    ),
    serverFolderImportsOnly(
      'run-knows-no-http',
      'src/server/run/ holds one intent under a lease (runOnce, held runs, lease options) with no Request or Response: it imports only the store contract, so queue consumers use it without the HTTP layer.',
      'run/',
      ['store/'],
    ),
    serverFolderImportsOnly(
      'format-is-bytes',
      "src/server/format/ is what goes into a store's strings and onto the wire (stored responses, answer heads, SSE frames, bytes): pure encoding with no store, run or HTTP behind it, so every folder above can use it.",
      'format/',
      [],
    ),
    serverFolderImportsOnly(
      'stream-never-answers-http',
      "src/server/stream/ moves a model's output into the answer log and out to readers (run, produce, batch, frame, follow): it builds on the store contract, formats and held runs but never imports HTTP answers, routes or the memory store, so how a request is answered cannot leak into how an answer is written.",
      'stream/',
      ['store/', 'format/', 'run/'],
    ),
    {
      name: 'entries-are-tops',
      comment:
        'src/server/index.ts and node.ts are the public entries (answer-once/server, answer-once/server/node): nothing inside src/server imports them, so an entry lists what is public and nothing more.',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: '^src/server/(index|node)\\.ts$' },
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

    {
      name: 'otel-reads-server-events',
      comment:
        "src/otel (answer-once/otel) turns the server's events into metrics: of ours it imports the option checks of src/core and the event and usage types of src/server only, so it carries no server code.",
      severity: 'error',
      from: { path: src('otel') },
      to: { path: '^src/', pathNot: ['^src/otel/', src('core'), '^src/server/(events|usage)\\.ts$'] },
    },
    {
      name: 'otel-types-of-server-only',
      comment:
        'src/otel takes only types from src/server: a metrics listener must not pull the reference server into a bundle.',
      severity: 'error',
      from: { path: src('otel') },
      to: { path: '^src/server/', dependencyTypesNot: ['type-only'] },
    },

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
      name: 'ai-server-uses-the-public-server',
      comment:
        "src/ai-server (answer-once/ai/server) journals an AI SDK agent turn through the handler's ctx.step: of ours it imports the public server entry (src/server/index.ts) and src/core only, and from packages `ai` itself (wrapLanguageModel), so it rests on what every user of the server has. One exception: the server's SHA-256 (src/server/sha256.ts, the step keys' digest) for the approval ids, a hash that is no part of the server's API.",
      severity: 'error',
      from: { path: src('ai-server') },
      to: {
        path: '^src/',
        pathNot: ['^src/ai-server/', src('core'), '^src/server/index\\.ts$', '^src/server/sha256\\.ts$'],
      },
    },
    {
      name: 'check-is-black-box',
      comment:
        'src/check (the `answer-once check` command) tests a server over HTTP as any client would: of ours it imports src/core only (the wire names and formats), and no package but Node built-ins, so it checks the wire and never the reference server from inside.',
      severity: 'error',
      from: { path: src('check') },
      to: { pathNot: ['^src/(check|core)/'], dependencyTypesNot: ['core'] },
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
        'Every spec lives in test/, in the folder that mirrors what it specifies (test/server/http/…, test/client/…): nothing under src/ imports vitest but src/testing, the public store contract (answer-once/testing).',
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

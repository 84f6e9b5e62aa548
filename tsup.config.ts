import { defineConfig } from 'tsup';

// One bundle per public entry point; the layers of ARCHITECTURE.md § Layers and entries hold
// because each entry only imports what it re-exports (npm run deps checks it), and peers
// stay external.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    react: 'src/react/index.ts',
    server: 'src/server/index.ts',
    'server-node': 'src/server/node.ts',
    redis: 'src/redis/index.ts',
    postgres: 'src/postgres/index.ts',
    upstash: 'src/upstash/index.ts',
    testing: 'src/testing/index.ts',
    msw: 'src/msw/index.ts',
    ai: 'src/ai/index.ts',
    'ai-server': 'src/ai-server/index.ts',
    outbox: 'src/client/outbox/index.ts',
    otel: 'src/otel/index.ts',
    // The `answer-once` command (package.json `bin`): `answer-once check <url>`.
    cli: 'src/check/bin.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
  treeshake: true,
  // Node-only entries (redis, server/node) import `node:*` built-ins: leave them to the
  // runtime, protocol kept (every supported Node has it).
  removeNodeProtocol: false,
  external: [/^node:/],
  splitting: true,
});

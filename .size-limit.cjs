// `npm run size` (in CI, after `npm run build`): what a browser app downloads from the
// built client entry, minified by esbuild and gzipped (size-limit's gzip level, so a little
// above bench/client.ts's gzip -9 figures), with ky and ulid left to the app
// (they are dependencies it shares). Limits sit just above today's size: lower them as
// the client is trimmed, toward ≤ 4 kB for createClient (README § Benchmarks).
const common = { gzip: true, ignore: ['ky', 'ulid'] };

// The streaming modules of `client.fetch` and `client.stream` (the resumable body, SSE
// positions, stream parts, eventsource-parser — 1.8 kB of them the parser) are a chunk the
// client imports on the first `fetch` or `stream`, so an app whose bundler splits chunks downloads them only when it
// streams. The first line leaves that chunk out (what every page loads); the next two
// count it (size-limit would otherwise inline the dynamic import).
// `client.stop` added ~0.25 kB to the first load — the bookkeeping that keeps a
// stopped intent in storage (src/client/storage/stopped.ts) — and ~0.4 kB to the streaming
// chunk, which its request code loads with.
const lazyStream = (config) => ({ ...config, external: [...(config.external ?? []), './streaming-*'] });
module.exports = [
  {
    name: 'createClient, first load (answer-once)',
    path: 'dist/index.js',
    import: '{ createClient }',
    limit: '7.7 kB',
    modifyEsbuildConfig: lazyStream,
    ...common,
  },
  {
    name: 'createClient with client.fetch loaded',
    path: 'dist/index.js',
    import: '{ createClient }',
    // The resumable body finds event units in the raw bytes (lastIndexOf, a CR-aware scan,
    // the marker check) instead of parsing and re-framing every event: about half the CPU
    // per stream, for ~0.3 kB more than the re-framer it replaced (13.2 → 13.5 kB here,
    // 15.4 → 15.7 kB for the whole entry).
    limit: '13.5 kB',
    ...common,
  },
  { name: 'the whole answer-once entry', path: 'dist/index.js', import: '*', limit: '15.7 kB', ...common },
  // The transport without the client it is given (the app imports createClient anyway);
  // eventsource-parser is counted, since only the streaming modules use it.
  // A restart shown in place (the marker → `reset-step`) took it from 3.9 to 4.1 kB.
  { name: 'answer-once/ai', path: 'dist/ai.js', import: '*', limit: '4.2 kB', ...common, ignore: ['ky', 'ulid', 'ai'] },
];

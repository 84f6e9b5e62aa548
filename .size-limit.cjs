// `npm run size` (in CI, after `npm run build`): what a browser app downloads from the
// built client entry, minified by esbuild and gzipped (size-limit's gzip level, so a little
// above bench/client.ts's gzip -9 figures), with ky and ulid left to the app
// (they are dependencies it shares). Limits sit just above today's size: lower them as
// the client is trimmed, toward ≤ 4 kB for createClient (README § Benchmarks).
const common = { gzip: true, ignore: ['ky', 'ulid'] };

module.exports = [
  { name: 'createClient (answer-once)', path: 'dist/index.js', import: '{ createClient }', limit: '6.65 kB', ...common },
  { name: 'the whole answer-once entry', path: 'dist/index.js', import: '*', limit: '8.3 kB', ...common },
  // answer-once/ai (src/ai, coming): add its line here when the entry exists, e.g.
  // { name: 'answer-once/ai', path: 'dist/ai.js', import: '*', limit: '…', ...common, ignore: ['ky', 'ulid', 'ai'] },
];

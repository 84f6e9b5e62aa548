// `npm run size` (in CI, after `npm run build`): what a browser app downloads from the
// built client entry, minified by esbuild and gzipped (size-limit's gzip level, so a little
// above bench/client.ts's gzip -9 figures), with ky and ulid left to the app
// (they are dependencies it shares). Limits sit just above today's size: lower them as
// the client is trimmed, toward ≤ 4 kB for createClient (README § Benchmarks).
const common = { gzip: true, ignore: ['ky', 'ulid'] };

// The streaming modules of `client.fetch`, `client.stream` and `client.stop` (the
// resumable body, SSE positions, stream parts, the stop request, eventsource-parser —
// 1.8 kB of them the parser) ship with createClient: a send made offline must meet a
// network error the client handles, never a chunk that cannot load. They were a chunk
// loaded on the first streamed send; bundling them took createClient's first load from
// 7.7 kB (13.5 kB once the chunk loaded) to 13.2 kB.
module.exports = [
  {
    name: 'createClient (answer-once), its streaming modules included',
    path: 'dist/index.js',
    import: '{ createClient }',
    limit: '13.2 kB',
    ...common,
  },
  // One reading each of a restart marker's generation, a flag header and the null-body
  // statuses, the stopped-intent set's own methods and client.fetch's poll count: +0.07 kB.
  { name: 'the whole answer-once entry', path: 'dist/index.js', import: '*', limit: '15.75 kB', ...common },
  // The transport without the client it is given (the app imports createClient anyway);
  // eventsource-parser is counted, since only the streaming modules use it.
  // A restart shown in place (the marker → `reset-step`) took it from 3.9 to 4.1 kB; the
  // stop guard and the position of the last chunk useChat took (a stop keeps exactly the
  // text on screen) to 4.5 kB.
  { name: 'answer-once/ai', path: 'dist/ai.js', import: '*', limit: '4.55 kB', ...common, ignore: ['ky', 'ulid', 'ai'] },
];

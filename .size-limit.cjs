// `npm run size` (in CI, after `npm run build`): what a browser app downloads from each
// built entry, minified by esbuild and gzipped, ky and ulid left to the app (dependencies
// it shares; `npm run size:app` counts them, in a real Vite build). Each limit is a ratchet:
// today's size plus the headroom its note states; lower it when the entry shrinks.
const common = { gzip: true, ignore: ['ky', 'ulid'] };

module.exports = [
  // 7.49 kB today, +0.1 kB headroom; goal ≤ 6 kB.
  {
    name: 'createClient: JSON sends, retries, polls',
    path: 'dist/index.js',
    import: '{ createClient }',
    limit: '7.59 kB',
    ...common,
  },
  // What storage brings (writing, checking and resending stored intents): 9.46 kB today, +0.1 kB headroom.
  {
    name: 'createClient + localStorageAdapter: pending intents survive a reload',
    path: 'dist/index.js',
    import: '{ createClient, localStorageAdapter }',
    limit: '9.56 kB',
    ...common,
  },
  // 13.68 kB today, +0.16 kB headroom.
  {
    name: 'createClient + streaming: client.fetch, client.stream, the resumable body, eventsource-parser',
    path: 'dist/index.js',
    import: '{ createClient, streaming }',
    limit: '13.84 kB',
    ...common,
  },
  // 15.07 kB today, +0.18 kB headroom.
  {
    name: 'createClient + streaming + shareTabs: one stream per intent across tabs',
    path: 'dist/index.js',
    import: '{ createClient, streaming, shareTabs }',
    limit: '15.25 kB',
    ...common,
  },
  // 20.77 kB today, +0.14 kB headroom.
  { name: 'the whole answer-once entry', path: 'dist/index.js', import: '*', limit: '20.91 kB', ...common },
  // The IndexedDB outbox with idb (~1.2 kB), the error classes and the storage code (writing and resuming its sends) it shares
  // with a client that has storage: 5.43 kB today, +0.08 kB headroom
  // (0.12 kB of it is each waiting tab's hold on a send: another tab's abort leaves a send this tab still waits for).
  { name: 'answer-once/outbox', path: 'dist/outbox.js', import: '*', limit: '5.51 kB', ...common },
  // The transport with client.fetch's streaming, client.stop and toolAnswers (the client it is given not counted): 12.73 kB today, +0.09 kB headroom.
  {
    name: 'answer-once/ai alone',
    path: 'dist/ai.js',
    import: '*',
    limit: '12.82 kB',
    ...common,
    ignore: ['ky', 'ulid', 'ai'],
  },
  // 18.78 kB today, +0.11 kB headroom; goal ≤ 10 kB. A chat whose page answers tools adds toolAnswers.
  {
    name: 'answerOnceTransport + createClient: all a useChat app adds but ky and ulid',
    path: ['dist/ai.js', 'dist/index.js'],
    import: { 'dist/ai.js': '{ answerOnceTransport }', 'dist/index.js': '{ createClient, localStorageAdapter }' },
    limit: '18.89 kB',
    ...common,
    ignore: ['ky', 'ulid', 'ai'],
  },
];

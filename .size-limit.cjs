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
// Bounding every loop and checking what is resent took it to 15.05 kB (+1.8 kB): the
// rerun count and idle deadline of the resumable body, protocol-unit marker recognition
// and placing a resumed stream by its first position (unit-fields, the check in
// event-units), the stored-record check and origin rule of `resume()`, and the
// `IntentExhaustedError` / `StoredIntentError` classes.
// The `tabs` and `outbox` options added +0.43 kB (15.05 → 15.5 kB) to it: the client's side of both (the
// outbox's `carry` around a send, pending intents read from the outbox, a body that starts
// from a position and tells each chunk's, the hand-off to `tabs`). Their implementations
// are not in that line: `shareTabs()` is tree-shaken unless imported (its own line), and
// the outbox is its own entry, with `idb`.
// A stopped intent read from the server, not from another tab (the storage check before
// sharing): +0.04 kB. A storage that fails never failing a send (a save, list or remove
// that throws, told once): +0.1 kB.
// The table of problem codes (src/core/problems.ts: every code's status, client class and
// next step, read by the client instead of the lists it replaced): +0.34 kB (15.95 → 16.29 kB).
module.exports = [
  {
    name: 'createClient (answer-once), its streaming modules included',
    path: 'dist/index.js',
    import: '{ createClient }',
    limit: '16.3 kB',
    ...common,
  },
  // One reading each of a restart marker's generation, a flag header and the null-body
  // statuses, the stopped-intent set's own methods and client.fetch's poll count: +0.07 kB.
  // Tab sharing: the lead/follow protocol over Web Locks and BroadcastChannel (+1.2 kB);
  // a page whose navigation started takes no read over (page-leaving): +0.12 kB.
  // A follower bounded by a reader's deadlines (taking the lock from a hung reading tab), a
  // hello said again, reading alone when Web Locks are refused: +0.06 kB.
  {
    name: 'createClient + shareTabs',
    path: 'dist/index.js',
    import: '{ createClient, shareTabs }',
    limit: '17.7 kB',
    ...common,
  },
  // `shareTabs`, the `tabs`/`outbox` options and SendController's offline queue: +1.7 kB.
  // The table of problem codes: +0.32 kB.
  { name: 'the whole answer-once entry', path: 'dist/index.js', import: '*', limit: '20.55 kB', ...common },
  // The offline outbox, its own entry: the queue, `idb` (~1.2 kB of it) and the client's
  // error classes it shares with createClient (an app has them already), bundled with the
  // app so an offline send never waits on a chunk.
  // An IndexedDB that fails never stopping a send (reopened once, else the send goes
  // directly, told once), and a send another tab sent going in its turn: +0.26 kB.
  { name: 'answer-once/outbox', path: 'dist/outbox.js', import: '*', limit: '3.45 kB', ...common },
  // The transport without the client it is given (the app imports createClient anyway);
  // eventsource-parser is counted, since only the streaming modules use it.
  // A restart shown in place (the marker → `reset-step`) took it from 3.9 to 4.1 kB; the
  // stop guard and the position of the last chunk useChat took (a stop keeps exactly the
  // text on screen) to 4.5 kB.
  // A typed `IntentExhaustedError` (the error classes it extends) and edits as new intents
  // (the payload digest) took it from 4.55 to 5.3 kB.
  // Every problem with a class of its own surfaced typed, as client.send does (the problem
  // table and its classes), and a restart after several steps shown in place.
  // Answers to tool approvals one intent keyed by the approvals, and a tab whose answer came second shown the first one's outcome: +0.31 kB.
  { name: 'answer-once/ai', path: 'dist/ai.js', import: '*', limit: '7.26 kB', ...common, ignore: ['ky', 'ulid', 'ai'] },
];

/**
 * `npm run demo:next`: the Next.js example's production build (`next build`), then
 * `next start` on one loopback port, over the PostgreSQL at `DATABASE_URL` — or, when it
 * is not set, a throwaway one started here (PostgreSQL's server binaries, as the test
 * suites start theirs: a temporary folder, a free loopback port, removed on exit).
 *
 *   npm run demo:next                          # http://127.0.0.1:3000/
 *   PORT=0 npm run demo:next                   # any free port
 *   TOKEN_DELAY_MS=150 npm run demo:next       # a slower mock model (ms per token)
 *
 * `NEXT_DIST_DIR` builds into another folder than `.next` (the e2e suite does, so a
 * running demo is left alone).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const NEXT = createRequire(import.meta.url).resolve('next/dist/bin/next');
const APP = fileURLToPath(new URL('.', import.meta.url));
// Nothing leaves this machine: Next.js would otherwise report anonymous usage.
const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

const host = process.env.HOST ?? '127.0.0.1';
const wanted = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(wanted) || wanted < 0) {
  console.error(`nextjs demo: PORT must be a whole number ≥ 0, got "${process.env.PORT}"`);
  process.exit(2);
}

/** How long `next` may take to stop on SIGTERM before its whole process group is SIGKILLed. */
const NEXT_GRACE_MS = 1_000;

let child: ChildProcess | undefined;
const stopping = new AbortController();

/**
 * Stops what this demo started — `next` with every process of its group (the build's
 * workers too), and the PostgreSQL it started (or is starting) — then exits. Bounded:
 * within about 2 s of the signal, whatever each was doing, and saying only what failed.
 */
async function shutdown(code: number): Promise<void> {
  if (stopping.signal.aborted) return; // a second Ctrl+C: the first one's stop is on its way
  stopping.abort();
  const stopDatabase = async (): Promise<void> => (await opening.catch(() => undefined))?.stop();
  const results = await Promise.allSettled([stopNext(), stopDatabase()]);
  for (const result of results) {
    if (result.status === 'rejected') console.error(`nextjs demo: stopping failed (${messageOf(result.reason)})`);
  }
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(0));
// The last resort (an uncaught error, process.exit elsewhere): nothing of next's is left behind.
process.once('exit', () => child && signalGroup(child, 'SIGKILL'));

/** Signals `running`'s whole process group (it leads one: spawned detached). */
function signalGroup(running: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (running.pid !== undefined) process.kill(-running.pid, signal);
  } catch {
    // the group is gone
  }
}

async function stopNext(): Promise<void> {
  const running = child;
  if (!running) return;
  if (running.exitCode === null && running.signalCode === null) {
    const exited = once(running, 'exit');
    signalGroup(running, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(running, 'SIGKILL'), NEXT_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
  signalGroup(running, 'SIGKILL'); // whatever of its group outlived it
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

interface Database {
  readonly url: string;
  stop(): Promise<void>;
}

/** `DATABASE_URL`, or a PostgreSQL of its own (undefined when the demo stopped meanwhile); or says exactly what it needs. */
async function openDatabase(): Promise<Database | undefined> {
  const url = process.env.DATABASE_URL;
  if (url) return { url, stop: async () => undefined };
  const { PostgresServer } = await import('../../test/support/postgres-server.js');
  try {
    const server = await PostgresServer.start({ signal: stopping.signal });
    console.log(`nextjs demo: PostgreSQL started for this run at ${server.url}`);
    return { url: server.url, stop: () => server.stop() };
  } catch (error) {
    if (stopping.signal.aborted) return undefined;
    console.error(
      `nextjs demo: DATABASE_URL is not set and no PostgreSQL could be started here (${messageOf(error)}).\n` +
        'Set DATABASE_URL=postgres://user:password@host:5432/database (PostgreSQL ≥ 13; the tables are created on first use), ' +
        'or install PostgreSQL (Debian: apt-get install postgresql).',
    );
    process.exit(1);
  }
}

/**
 * Runs `next <args>` in a process group of its own (so Ctrl+C reaches it only through
 * `shutdown`, which stops the whole group), its output passed through; resolves once
 * `ready` says so, or it exited well.
 */
function next(args: string[], ready: (output: string) => boolean = () => false): Promise<void> {
  const running = spawn(process.execPath, [NEXT, ...args, APP], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  child = running;
  return new Promise((resolve, reject) => {
    let output = '';
    running.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      process.stdout.write(chunk);
      output += chunk;
      if (ready(output)) resolve();
    });
    running.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`next ${args[0]} exited with ${code}`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const opening = openDatabase(); // meanwhile: the build takes a while
const started = Date.now();
/** Runs `step`; when it fails (and the demo is not stopping anyway), says so and stops. */
async function orStop(step: Promise<unknown>, what: string): Promise<void> {
  try {
    await step;
  } catch (error) {
    if (stopping.signal.aborted) return;
    console.error(`nextjs demo: ${what} failed (${messageOf(error)})`);
    await shutdown(1);
  }
}
await orStop(next(['build', '--webpack']), 'the build');
const database = await opening;
if (!stopping.signal.aborted && database) {
  console.log(`nextjs demo: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  env.DATABASE_URL = database.url;
  const port = wanted === 0 ? await freePort() : wanted;
  await orStop(
    next(['start', '--port', String(port), '--hostname', host], (output) => /Ready in/.test(output)),
    'next start',
  );
  const shown = host.includes(':') ? `[${host}]` : host;
  if (!stopping.signal.aborted) console.log(`answer-once × Next.js → http://${shown}:${port}/`);
  child?.once('exit', (code) => void shutdown(code ?? 0));
}

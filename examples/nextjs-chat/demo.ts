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

let child: ChildProcess | undefined;
let database: Database | undefined;

/** Stops `next` and the database this demo started, then exits. */
async function shutdown(code: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<never> {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }
  await database?.stop().catch((error: unknown) => console.error('nextjs demo: stopping PostgreSQL failed', error));
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void shutdown(0, signal));

interface Database {
  readonly url: string;
  stop(): Promise<void>;
}

/** `DATABASE_URL`, or a PostgreSQL of its own; or says exactly what it needs. */
async function openDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (url) return { url, stop: async () => undefined };
  const { PostgresServer } = await import('../../test/support/postgres-server.js');
  try {
    const server = await PostgresServer.start();
    console.log(`nextjs demo: PostgreSQL started for this run at ${server.url}`);
    return { url: server.url, stop: () => server.stop() };
  } catch (error) {
    console.error(
      `nextjs demo: DATABASE_URL is not set and no PostgreSQL could be started here (${String(error)}).\n` +
        'Set DATABASE_URL=postgres://user:password@host:5432/database (PostgreSQL ≥ 13; the tables are created on first use), ' +
        'or install PostgreSQL (Debian: apt-get install postgresql).',
    );
    process.exit(1);
  }
}

/** Runs `next <args>`, its output passed through; resolves once `ready` says so, or it exited well. */
function next(args: string[], ready: (output: string) => boolean = () => false): Promise<void> {
  const running = spawn(process.execPath, [NEXT, ...args, APP], { env, stdio: ['ignore', 'pipe', 'inherit'] });
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
await next(['build', '--webpack']).catch(async (error: unknown) => {
  console.error(`nextjs demo: the build failed (${String(error)})`);
  database = await opening;
  await shutdown(1);
});
console.log(`nextjs demo: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
database = await opening;
env.DATABASE_URL = database.url;

const port = wanted === 0 ? await freePort() : wanted;
await next(['start', '--port', String(port), '--hostname', host], (output) => /Ready in/.test(output));
const shown = host.includes(':') ? `[${host}]` : host;
console.log(`answer-once × Next.js → http://${shown}:${port}/`);
child?.once('exit', (code) => void shutdown(code ?? 0));

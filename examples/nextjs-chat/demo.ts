/**
 * `npm run demo:next`: the Next.js example's production build (`next build`), then
 * `next start` on one loopback port. No database needed: `lib/store.ts` says which store
 * it runs on and why.
 *
 *   npm run demo:next                          # http://127.0.0.1:3000/
 *   PORT=0 npm run demo:next                   # any free port
 *   TOKEN_DELAY_MS=150 npm run demo:next       # a slower mock model (ms per token)
 *
 * `NEXT_DIST_DIR` builds into another folder than `.next` (the e2e suite does, so a
 * running demo is left alone).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const NEXT = createRequire(import.meta.url).resolve('next/dist/bin/next');
const APP = fileURLToPath(new URL('.', import.meta.url));
// Nothing leaves this machine: Next.js would otherwise report anonymous usage.
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

const host = process.env.HOST ?? '127.0.0.1';
const wanted = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(wanted) || wanted < 0) {
  console.error(`nextjs demo: PORT must be a whole number ≥ 0, got "${process.env.PORT}"`);
  process.exit(2);
}

let child: ChildProcess | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (!child || child.exitCode !== null) process.exit(0);
    child.once('exit', () => process.exit(0));
    child.kill(signal);
  });
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

const started = Date.now();
await next(['build', '--webpack']).catch((error: unknown) => {
  console.error(`nextjs demo: the build failed (${String(error)})`);
  process.exit(1);
});
console.log(`nextjs demo: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);

const port = wanted === 0 ? await freePort() : wanted;
await next(['start', '--port', String(port), '--hostname', host], (output) => /Ready in/.test(output));
const shown = host.includes(':') ? `[${host}]` : host;
console.log(`answer-once × Next.js → http://${shown}:${port}/`);
child?.once('exit', (code) => process.exit(code ?? 0));

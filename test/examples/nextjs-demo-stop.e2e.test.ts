/**
 * `npm run demo:next` stops what it started, promptly, every time: on Ctrl+C (SIGINT)
 * while it builds and while it serves an answer, it exits within 3 s, with its `next`
 * processes and its PostgreSQL gone and no stack trace printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requirePostgresServer } from '../support/postgres-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STOP_WITHIN_MS = 3_000;
/** The production build takes minutes on a loaded two-core machine. */
const BUILD_TIMEOUT_MS = 600_000;

interface Launch {
  readonly process: ChildProcess;
  /** Everything it printed, stdout and stderr. */
  output(): string;
  /** Resolves with the first match of `pattern` in its output. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** The processes still running that it started (found by a mark in their environment). */
  leftovers(): number[];
}

/** `npm run demo:next`, as its script runs it, marked so every process it starts can be found. */
function launch(): Launch {
  const mark = `ANSWER_ONCE_DEMO_STOP=${crypto.randomUUID()}`;
  const [name, value] = mark.split('=') as [string, string];
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/nextjs-chat/demo.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      TOKEN_DELAY_MS: '200',
      NEXT_DIST_DIR: '.next-e2e-stop',
      DATABASE_URL: '',
      [name]: value,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const seen = new Set<() => void>();
  const collect = (chunk: string): void => {
    output += chunk;
    for (const check of [...seen]) check();
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  return {
    process: child,
    output: () => output,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`)), timeoutMs);
        const check = (): void => {
          const match = pattern.exec(output);
          if (!match) return;
          clearTimeout(timer);
          seen.delete(check);
          resolve(match);
        };
        seen.add(check);
        check();
      }),
    leftovers: () =>
      readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark);
          } catch {
            return false; // gone meanwhile, or not ours to read
          }
        })
        .map(Number),
  };
}

/** Whether something accepts connections on `port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Sends SIGINT and checks that everything the demo started is gone within 3 s, quietly. */
async function expectStoppedBySigint(demo: Launch, postgresPort: number): Promise<void> {
  expect(await accepts(postgresPort)).toBe(true);
  expect(demo.leftovers().length).toBeGreaterThan(1); // the launcher, next, PostgreSQL
  const exited = once(demo.process, 'exit');
  const sentAt = Date.now();
  demo.process.kill('SIGINT');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_WITHIN_MS))]);
  const tookMs = Date.now() - sentAt;
  const left = demo.leftovers();
  demo.process.kill('SIGKILL'); // a launcher that failed the spec is not left running
  for (const pid of left) process.kill(pid, 'SIGKILL');
  console.info(`[demo:next] stopped ${tookMs} ms after SIGINT, ${left.length} of its processes left`);
  expect(tookMs).toBeLessThan(STOP_WITHIN_MS);
  expect(left).toEqual([]);
  expect(await accepts(postgresPort)).toBe(false);
  expect(demo.output()).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/); // no stack trace
}

describe.skipIf(!requirePostgresServer())('npm run demo:next', () => {
  it('stops its build and its PostgreSQL within 3 s of Ctrl+C', { timeout: 120_000 }, async () => {
    const demo = launch();
    const [, port] = await demo.waitFor(/PostgreSQL started for this run at postgres:\/\/\S+:(\d+)\//, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the build is under way
    await expectStoppedBySigint(demo, Number(port));
  });

  it('stops its server, with an answer streaming, and its PostgreSQL within 3 s of Ctrl+C', {
    timeout: BUILD_TIMEOUT_MS,
  }, async () => {
    const demo = launch();
    const [, port] = await demo.waitFor(/PostgreSQL started for this run at postgres:\/\/\S+:(\d+)\//, 60_000);
    const [, url] = await demo.waitFor(/→ (http:\/\/127\.0\.0\.1:\d+\/)/, BUILD_TIMEOUT_MS);
    const answer = await fetch(new URL('/api/chat', url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': `demo-stop-${crypto.randomUUID()}` },
      body: JSON.stringify({
        messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Tell me a long story.' }] }],
      }),
    });
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    expect((await reader.read()).done).toBe(false); // streaming, a token every 200 ms
    await expectStoppedBySigint(demo, Number(port));
    await reader.cancel().catch(() => {});
  });
});

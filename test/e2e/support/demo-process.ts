/**
 * Starts the chat demo exactly as `npm run demo` does (its `server.ts` under tsx), as
 * a child process on a free loopback port, and stops it again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;

export interface DemoProcess {
  /** The page's URL, e.g. `http://127.0.0.1:41234/`. */
  readonly url: string;
  /** `GET /api/stats` of this server. */
  stats(): Promise<DemoStats>;
  /** Stops the process (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

/** The demo's counters: model calls, distinct intents, chat requests received. */
interface DemoStats {
  readonly modelCalls: number;
  readonly intents: number;
  readonly requests: number;
}

export interface DemoProcessOptions {
  /** The fake model's delay, in milliseconds. */
  readonly modelDelayMs: number;
}

export async function startDemoProcess({ modelDelayMs }: DemoProcessOptions): Promise<DemoProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/chat/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', MODEL_DELAY_MS: String(modelDelayMs), REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  try {
    const url = await readUrl(child, () => output);
    return {
      url,
      async stats() {
        const response = await fetch(new URL('/api/stats', url));
        return (await response.json()) as DemoStats;
      },
      stop: () => stop(child),
    };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

function readUrl(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`chat demo did not start: ${why}\n${stdout}${stderr()}`));
    };
    const timer = setTimeout(() => fail(`no URL within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('exit', (code) => fail(`exited with ${code}`));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /→ (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(match[1]!);
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

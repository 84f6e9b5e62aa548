/**
 * Starts the AI SDK demo exactly as `npm run demo:ai-sdk` does (`examples/ai-sdk-chat/server.ts`
 * under tsx) as a child process on a free loopback port, and stops it again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Stats } from '../../examples/ai-sdk-chat/api.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 90_000;

export interface AiSdkDemo {
  /** The page, e.g. `http://127.0.0.1:41234/`. */
  readonly url: string;
  /** The server's counters: model calls, intents, chat requests, cut answers. */
  stats(): Promise<Stats>;
  stop(): Promise<void>;
}

export async function startAiSdkDemoProcess({ tokenDelayMs }: { tokenDelayMs: number }): Promise<AiSdkDemo> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/ai-sdk-chat/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', TOKEN_DELAY_MS: String(tokenDelayMs) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await readUrl(child);
    return {
      url,
      stats: async () => (await (await fetch(new URL('/api/stats', url))).json()) as Stats,
      stop: () => stop(child),
    };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

function readUrl(child: ChildProcess): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`ai-sdk demo did not start: ${why}\n${output}`));
    };
    const timer = setTimeout(() => fail(`no URL within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('exit', (code) => fail(`exited with ${code}`));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /→ (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
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
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

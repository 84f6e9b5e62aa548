/**
 * Starts a demo exactly as its npm script does (`npm run demo`: `examples/chat/server.ts`;
 * `npm run demo:ai-sdk`: `examples/ai-sdk-chat/server.ts`; `npm run demo:next`:
 * `examples/nextjs-chat/demo.ts`, each under tsx), as a child process on a free loopback
 * port, and stops it again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Stats as AiSdkStats } from '../../examples/shared/stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;

export interface ExampleProcess<TStats> {
  /** The page's URL, e.g. `http://127.0.0.1:41234/`. */
  readonly url: string;
  /** `GET /api/stats` of this server. */
  stats(): Promise<TStats>;
  /** Stops the process (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

/** The chat demo's counters: model calls, distinct intents, chat requests received, model calls avoided. */
interface DemoStats {
  readonly modelCalls: number;
  readonly intents: number;
  readonly requests: number;
  readonly avoidedCalls: number;
}

export type DemoProcess = ExampleProcess<DemoStats>;
export type AiSdkDemo = ExampleProcess<AiSdkStats>;

/** The chat demo (`npm run demo`), its fake model answering after `modelDelayMs`, without Redis. */
export const startDemoProcess = ({ modelDelayMs }: { modelDelayMs: number }): Promise<DemoProcess> =>
  startExample('examples/chat/server.ts', { MODEL_DELAY_MS: String(modelDelayMs), REDIS_URL: '' });

/** The AI SDK demo (`npm run demo:ai-sdk`), its mock model writing a token every `tokenDelayMs`. */
export const startAiSdkDemoProcess = ({ tokenDelayMs }: { tokenDelayMs: number }): Promise<AiSdkDemo> =>
  startExample('examples/ai-sdk-chat/server.ts', { TOKEN_DELAY_MS: String(tokenDelayMs) });

/**
 * The Next.js example (`npm run demo:next`): its production build, into a folder of its
 * own (a running demo's `.next` is left alone), then `next start` over a PostgreSQL the
 * demo starts and stops itself (`DATABASE_URL` is cleared, so a developer's own database
 * is never written to).
 */
export const startNextDemoProcess = ({
  tokenDelayMs,
  startTimeoutMs,
}: {
  tokenDelayMs: number;
  startTimeoutMs: number;
}): Promise<AiSdkDemo> =>
  startExample(
    'examples/nextjs-chat/demo.ts',
    { TOKEN_DELAY_MS: String(tokenDelayMs), NEXT_DIST_DIR: '.next-e2e', DATABASE_URL: '' },
    startTimeoutMs,
  );

async function startExample<TStats>(
  script: string,
  env: Record<string, string>,
  startTimeoutMs = START_TIMEOUT_MS,
): Promise<ExampleProcess<TStats>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await readUrl(child, script, startTimeoutMs);
    return {
      url,
      stats: async () => (await (await fetch(new URL('/api/stats', url))).json()) as TStats,
      stop: () => stop(child),
    };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

/** The URL the server prints (`→ http://127.0.0.1:<port>/`), or why it never did. */
function readUrl(child: ChildProcess, script: string, timeoutMs: number): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`${script} did not start: ${why}\n${output}`));
    };
    const timer = setTimeout(() => fail(`no URL within ${timeoutMs} ms`), timeoutMs);
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
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

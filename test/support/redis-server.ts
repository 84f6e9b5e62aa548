/**
 * Real Redis for the test suites: a `redis-server` (or three, as a Cluster) on free
 * loopback ports with throwaway directories, started by the suite and stopped after.
 *
 *   const hasRedis = requireRedisServer();          // throws under CI=true when missing
 *   describe.skipIf(!hasRedis)('…', () => { … });   // locally: skipped with a warning
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, servicePresent } from './service-binaries.js';
import { sleep } from './sleep.js';

const REDIS_HOST = '127.0.0.1';
const INSTALL_HINT = 'apt-get install redis-server (Debian/Ubuntu; it provides redis-server and redis-cli)';

/**
 * True when `redis-server` and `redis-cli` run here. When they do not: under `CI=true`
 * it throws (the suite fails, saying what to install); locally it prints a warning and
 * returns false so the suite is skipped visibly, never silently.
 */
export function requireRedisServer(): boolean {
  const missing = ['redis-server', 'redis-cli'].filter(
    (binary) => spawnSync(binary, ['--version'], { stdio: 'ignore' }).status !== 0,
  );
  return servicePresent(
    'Redis',
    'Redis',
    missing.length ? `${missing.join(' and ')} not found: ${INSTALL_HINT}` : undefined,
  );
}

/**
 * Sends one inline command over a fresh connection and returns the raw reply text
 * (enough for PING, INFO and CLUSTER INFO; the suites use node-redis for the rest).
 */
export function rawCommand(port: number, command: string, timeoutMs = 1_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: REDIS_HOST, port });
    let reply = '';
    const finish = (error?: Error): void => {
      socket.destroy();
      if (error) reject(error);
      else resolve(reply);
    };
    socket.setTimeout(timeoutMs, () => finish(new Error(`redis :${port} did not answer ${command}`)));
    socket.once('error', finish);
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      const bulk = /^\$(\d+)\r\n/.exec(reply);
      if (bulk ? Buffer.byteLength(reply) >= bulk[0].length + Number(bulk[1]) + 2 : reply.endsWith('\r\n')) finish();
    });
    socket.write(`${command}\r\n`);
  });
}

/** Retries `check` every 25 ms until it returns true, at most `timeoutMs`. */
async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(25);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

// A safety net: a crashed test process must not leave servers running.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface RedisServerOptions {
  /** Persist with an append-only file (the restart spec). @default false */
  readonly appendonly?: boolean;
  /** More `redis-server` arguments. @default [] */
  readonly args?: readonly string[];
}

/** One real `redis-server` process on a loopback port, with its own directory. */
export class RedisServer {
  #child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    readonly options: RedisServerOptions,
  ) {}

  /** Starts a server on a free port and resolves once it answers PING. */
  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'answer-once-redis-'));
    for (let attempt = 1; ; attempt += 1) {
      const server = new RedisServer(await freePort(), dir, options);
      try {
        await server.#spawn();
        return server;
      } catch (error) {
        await server.#kill();
        if (attempt >= 3) {
          await rm(dir, { recursive: true, force: true });
          throw error;
        }
      }
    }
  }

  get url(): string {
    return `redis://${REDIS_HOST}:${this.port}`;
  }

  /** The process id, for signals (SIGSTOP a server in a spec). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Stops the process gracefully (SIGTERM: an append-only file is flushed), keeping its port and directory for `boot()`. */
  async halt(): Promise<void> {
    await this.#kill('SIGTERM');
  }

  /** Starts the process again on the same port and directory after `halt()`. */
  async boot(): Promise<void> {
    if (this.#child) throw new Error(`redis-server on :${this.port} is running`);
    await this.#spawn();
  }

  /** `halt()` then `boot()`: what a Redis restart looks like to its clients. */
  async restart(): Promise<void> {
    await this.halt();
    await this.boot();
  }

  /** Freezes (SIGSTOP) or thaws (SIGCONT) the process: a Redis that hangs without closing connections. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    this.#child?.kill(signal);
  }

  /** Stops the server and removes its directory. */
  async stop(): Promise<void> {
    await this.#kill('SIGTERM');
    await rm(this.dir, { recursive: true, force: true });
  }

  async #spawn(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      REDIS_HOST,
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      this.options.appendonly ? 'yes' : 'no',
      '--logfile',
      'redis.log',
      ...(this.options.args ?? []),
    ];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.#child = child;
    running.add(child);
    let exited = false;
    child.once('exit', () => {
      exited = true;
      running.delete(child);
    });
    await until(`redis-server on :${this.port}`, 10_000, async () => {
      if (exited) throw new Error(`redis-server on :${this.port} exited (see ${this.dir}/redis.log)`);
      return (await rawCommand(this.port, 'PING')).startsWith('+PONG');
    }).catch((error: unknown) => {
      throw exited ? new Error(`redis-server on :${this.port} exited at start (port taken?)`) : error;
    });
  }

  async #kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT'); // a stopped process cannot handle SIGTERM
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

/** A real 3-master Redis Cluster on loopback ports (no replicas). */
export class RedisClusterServer {
  private constructor(readonly nodes: readonly RedisServer[]) {}

  /** Starts the masters, joins them with `redis-cli --cluster create`, waits for `cluster_state:ok`. */
  static async start(masters = 3): Promise<RedisClusterServer> {
    const nodes: RedisServer[] = [];
    try {
      for (let index = 0; index < masters; index += 1) {
        const busPort = await freePort();
        nodes.push(
          await RedisServer.start({
            args: [
              '--cluster-enabled',
              'yes',
              '--cluster-config-file',
              'nodes.conf',
              '--cluster-node-timeout',
              '2000',
              '--cluster-port',
              String(busPort),
            ],
          }),
        );
      }
      const addresses = nodes.map((node) => `${REDIS_HOST}:${node.port}`);
      await promisify(execFile)(
        'redis-cli',
        ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'],
        { timeout: 30_000 },
      );
      for (const node of nodes) {
        await until(`cluster_state:ok on :${node.port}`, 30_000, async () => {
          const info = await rawCommand(node.port, 'CLUSTER INFO');
          return info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${masters}`);
        });
      }
      return new RedisClusterServer(nodes);
    } catch (error) {
      await Promise.all(nodes.map((node) => node.stop()));
      throw error;
    }
  }

  /** What `createCluster({ rootNodes })` takes. */
  get rootNodes(): { url: string }[] {
    return this.nodes.map((node) => ({ url: node.url }));
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
  }
}

/**
 * Server instances as real child processes (test/support/instance-process.ts), started
 * with `node --import tsx` so the pid IS the server: SIGSTOP freezes it, SIGKILL kills it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

const FIXTURE = path.resolve(import.meta.dirname, './instance-process.ts');

/** One line an instance printed. */
export interface InstanceEvent {
  readonly instance: string;
  readonly event: string;
  readonly id?: string;
  readonly answer?: string;
  readonly key?: string;
  readonly takeover?: boolean;
  readonly url?: string;
  readonly operation?: string;
  readonly call?: number;
  readonly at?: number;
  readonly events?: number;
  readonly reason?: string;
  /** When the instance printed it (its clock, epoch ms). */
  readonly t?: number;
  /** `stall`: the longest event-loop stall of the last second, when over a quarter lease. */
  readonly ms?: number;
}

export interface InstanceOptions {
  readonly name: string;
  /** redis:// URLs: one server, or a Cluster's nodes. */
  readonly urls?: readonly string[];
  /** A postgres:// URL: the instances share a PostgresStore instead. */
  readonly postgresUrl?: string;
  readonly cluster?: boolean;
  readonly leaseMs: number;
  /** The handler's flush window. @default 25 */
  readonly flushMs?: number;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export class ServerInstance {
  readonly events: InstanceEvent[] = [];
  readonly #waiters = new Set<() => void>();
  #url = '';
  #exited: Promise<void>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    running.add(child);
    this.#exited = new Promise((resolve) =>
      child.once('exit', () => {
        running.delete(child);
        resolve();
      }),
    );
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const event = JSON.parse(line) as InstanceEvent;
      this.events.push(event);
      if (event.event === 'ready' && event.url) this.#url = event.url;
      for (const wake of [...this.#waiters]) wake();
    });
  }

  static async start(options: InstanceOptions): Promise<ServerInstance> {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        INSTANCE: options.name,
        REDIS_URLS: (options.urls ?? []).join(','),
        POSTGRES_URL: options.postgresUrl ?? '',
        REDIS_CLUSTER: options.cluster ? '1' : '0',
        LEASE_MS: String(options.leaseMs),
        FLUSH_MS: String(options.flushMs ?? 25),
      },
    });
    const instance = new ServerInstance(options.name, child);
    try {
      // Generous: a child compiles its sources with tsx, which takes long on a starved machine.
      await instance.waitFor((event) => event.event === 'ready', 90_000);
    } catch (error) {
      instance.kill();
      throw error;
    }
    return instance;
  }

  get url(): string {
    return this.#url;
  }

  /** Resolves with the first event (already printed or still to come) that matches. */
  waitFor(match: (event: InstanceEvent) => boolean, timeoutMs: number): Promise<InstanceEvent> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.events.find(match);
        if (!found) return false;
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve(found);
        return true;
      };
      const wake = (): void => void check();
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        reject(new Error(`${this.name}: no matching event within ${timeoutMs} ms`));
      }, timeoutMs);
      if (!check()) this.#waiters.add(wake);
    });
  }

  /** SIGSTOP: the process freezes, its connections stay open, its lease stops being renewed. */
  pause(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  kill(): void {
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
  }

  /** Graceful stop (SIGTERM), SIGKILL after 5 s; resolves when the process is gone. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.#exited;
    clearTimeout(timer);
  }

  get exited(): Promise<void> {
    return this.#exited;
  }
}

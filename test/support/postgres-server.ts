/**
 * Real PostgreSQL for the test suites: a throwaway cluster (`initdb` into a temporary
 * folder) served by `postgres` on a free loopback port, trust authentication on
 * 127.0.0.1 only, started by the suite and stopped and removed after.
 *
 *   const hasPostgres = requirePostgresServer();        // throws under CI=true when missing
 *   describe.skipIf(!hasPostgres)('…', () => { … });    // locally: skipped with a warning
 *
 * PostgreSQL refuses to run as root: as root the server runs as the `postgres` user the
 * Debian package creates (`runuser -u postgres`).
 *
 * `stop()` is bounded and never fails: it signals the postmaster itself (an immediate
 * shutdown, SIGKILL after a grace), so a launcher stops within its promise (the Next.js
 * demo: 3 s after Ctrl+C) whether the server is up, already gone, or still starting
 * (`start({ signal })` aborts then, leaving nothing behind).
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, servicePresent } from './service-binaries.js';
import { sleep } from './sleep.js';

const HOST = '127.0.0.1';
/** How long an immediate shutdown (SIGQUIT) may take before the postmaster is SIGKILLed. */
const STOP_GRACE_MS = 1_000;
const INSTALL_HINT =
  'apt-get install postgresql (Debian/Ubuntu; its server binaries live in /usr/lib/postgresql/<version>/bin), or set POSTGRES_BIN to a folder with initdb, pg_ctl and postgres';
const run = promisify(execFile);

/** The folder with initdb, pg_ctl and postgres: POSTGRES_BIN, the newest Debian one, or PATH. */
function binaries(): string | undefined {
  const candidates = [process.env.POSTGRES_BIN];
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = spawnSync('ls', [debian], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    versions.sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => path.join(debian, version, 'bin')));
  }
  for (const folder of candidates) {
    if (folder && ['initdb', 'pg_ctl', 'postgres'].every((bin) => existsSync(path.join(folder, bin)))) return folder;
  }
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).stdout.trim();
  return onPath ? path.dirname(onPath) : undefined;
}

/** As root, the unprivileged user the server runs as (PostgreSQL will not run as root). */
function serverUser(): { name: string; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const found = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  if (found.status !== 0) throw new Error(`running as root needs a \`postgres\` user to run the server: ${INSTALL_HINT}`);
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { name: 'postgres', uid: Number(found.stdout.trim()), gid };
}

/**
 * True when PostgreSQL's server binaries are here. When they are not: under `CI=true` it
 * throws (the suite fails, saying what to install); locally it prints a warning and
 * returns false so the suite is skipped visibly, never silently.
 */
export function requirePostgresServer(): boolean {
  return servicePresent('Postgres', 'PostgreSQL', binaries() ? undefined : `PostgreSQL not found: ${INSTALL_HINT}`);
}

// A safety net: a crashed test process must not leave servers running.
const running = new Set<PostgresServer>();
process.once('exit', () => {
  for (const server of running) server.killNow();
});

/** One real PostgreSQL server on a loopback port, with its own data folder. */
export class PostgresServer {
  #up = false;

  private constructor(
    readonly port: number,
    readonly dir: string,
    readonly bin: string,
    readonly user: ReturnType<typeof serverUser>,
  ) {}

  /**
   * Creates a cluster in a temporary folder and starts it on a free port; resolves once it
   * accepts connections. Aborting `signal` stops the start: whatever it started is killed
   * and its folder removed, and it rejects.
   */
  static async start({ signal }: { signal?: AbortSignal } = {}): Promise<PostgresServer> {
    const bin = binaries();
    if (!bin) throw new Error(`PostgreSQL not found: ${INSTALL_HINT}`);
    const user = serverUser();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'answer-once-postgres-'));
    if (user) await chown(dir, user.uid, user.gid);
    const server = new PostgresServer(await freePort(), dir, bin, user);
    try {
      await server.#as('initdb', ['-D', server.data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync'], signal);
      for (let attempt = 1; ; attempt += 1) {
        try {
          await server.boot(signal);
          return server;
        } catch (error) {
          if (attempt >= 3 || signal?.aborted) throw error;
          (server as { port: number }).port = await freePort(); // taken meanwhile: another port
        }
      }
    } catch (error) {
      await server.stop(); // a postmaster pg_ctl forked before it was stopped, and the folder
      throw error;
    }
  }

  get data(): string {
    return path.join(this.dir, 'data');
  }

  /** `postgres://postgres@127.0.0.1:<port>/postgres`: trust authentication, no password. */
  get url(): string {
    return `postgres://postgres@${HOST}:${this.port}/postgres`;
  }

  /** Starts the server (again, after `halt()`) on the same port and data folder. */
  async boot(signal?: AbortSignal): Promise<void> {
    const settings = [
      `-p ${this.port}`,
      `-c listen_addresses=${HOST}`,
      "-c unix_socket_directories=''",
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    await this.#as(
      'pg_ctl',
      ['-D', this.data, '-l', path.join(this.dir, 'server.log'), '-o', settings, '-w', '-t', '30', 'start'],
      signal,
    );
    this.#up = true;
    running.add(this);
  }

  /** Stops the server, `fast` (clients disconnected, a clean shutdown) or `immediate` (a crash: recovery at the next boot). */
  async halt(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    if (!this.#up) return;
    await this.#as('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '30', 'stop']);
    this.#up = false;
    running.delete(this);
  }

  /** `halt()` then `boot()`: what a PostgreSQL restart looks like to its clients. */
  async restart(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.halt(mode);
    await this.boot();
  }

  /**
   * Stops the server and removes its folder, within about `STOP_GRACE_MS`: an immediate
   * shutdown (SIGQUIT to the postmaster, as `pg_ctl stop -m immediate` sends), SIGKILL if
   * it is still there after the grace. A server already gone is no error.
   */
  async stop(): Promise<void> {
    const pid = this.#postmaster();
    try {
      if (pid !== undefined && signal(pid, 'SIGQUIT') && !(await gone(pid, STOP_GRACE_MS))) {
        signal(pid, 'SIGKILL');
        await gone(pid, STOP_GRACE_MS);
      }
    } finally {
      this.#up = false;
      running.delete(this);
      await rm(this.dir, { recursive: true, force: true });
    }
  }

  /** SIGKILLs the postmaster at process exit (the safety net); its children follow. */
  killNow(): void {
    const pid = this.#postmaster();
    if (pid !== undefined) signal(pid, 'SIGKILL');
  }

  /** The postmaster's PID, from its pid file; undefined when there is none (not running). */
  #postmaster(): number | undefined {
    try {
      const pid = Number(readFileSync(path.join(this.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** Runs one server binary, as the `postgres` user when this process is root; `signal` kills it. */
  async #as(binary: string, args: string[], signal?: AbortSignal): Promise<void> {
    const command = path.join(this.bin, binary);
    const [file, argv] = this.user ? ['runuser', ['-u', this.user.name, '--', command, ...args]] : [command, args];
    try {
      await run(file, argv, { timeout: 60_000, cwd: this.dir, signal });
    } catch (error) {
      const log = existsSync(path.join(this.dir, 'server.log'))
        ? readFileSync(path.join(this.dir, 'server.log'), 'utf8').slice(-2_000)
        : '';
      const { stderr = '' } = error as { stderr?: string };
      throw new Error(`${binary} ${args.at(-1)} failed: ${stderr.trim()}\n${log}`, { cause: error });
    }
  }
}

/** Sends `name` to `pid`; false when there is no such process. */
function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` is gone within `withinMs` (looked at every 20 ms). */
async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
}

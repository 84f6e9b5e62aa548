/**
 * What the rigs that run a real service (redis-server, PostgreSQL) share: a free loopback
 * port for it, and the verdict when its binaries are missing.
 */
import net from 'node:net';

/** A TCP port nobody listens on right now (the OS picks it on 127.0.0.1). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The verdict on a service's suites when `missing` says what is not installed (nothing:
 * true). Under `CI=true` it throws (the suite fails, saying what to install); locally it
 * prints a warning and returns false so the suites are skipped visibly, never silently.
 */
export function servicePresent(suites: string, service: string, missing: string | undefined): boolean {
  if (!missing) return true;
  if (process.env.CI === 'true') throw new Error(`answer-once ${suites} suites need ${service}. ${missing}`);
  console.warn(`\n⚠️  SKIPPING the ${suites} suites: ${missing}\n`);
  return false;
}

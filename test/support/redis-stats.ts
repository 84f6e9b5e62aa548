/**
 * Round trips as Redis itself counts them: `INFO commandstats` before and after, summed
 * over every node of a Cluster. RedisStore sends nothing but EVALSHA (and one EVAL after
 * NOSCRIPT), so its round trips are the calls of those two; commands a script runs
 * inside Redis are counted under their own names and are not round trips.
 */
import { rawCommand } from './redis-server.js';

/** Calls per command name (`evalsha`, `get`, `config|resetstat`, …). */
export type CommandCalls = Readonly<Record<string, number>>;

export async function commandCalls(ports: readonly number[]): Promise<CommandCalls> {
  const calls: Record<string, number> = {};
  for (const port of ports) {
    const info = await rawCommand(port, 'INFO commandstats');
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      const [, name = '', count = '0'] = match;
      calls[name] = (calls[name] ?? 0) + Number(count);
    }
  }
  return calls;
}

/** What `fn` cost in commands, `info` (the measurement itself) left out. */
export async function measureCalls(ports: readonly number[], fn: () => Promise<unknown>): Promise<CommandCalls> {
  const before = await commandCalls(ports);
  await fn();
  const after = await commandCalls(ports);
  const delta: Record<string, number> = {};
  for (const [name, count] of Object.entries(after)) {
    const diff = count - (before[name] ?? 0);
    if (diff > 0 && name !== 'info') delta[name] = diff;
  }
  return delta;
}

/** Round trips of script-running clients: EVALSHA calls (a NOSCRIPT miss included) plus EVAL calls. */
export function scriptRoundTrips(calls: CommandCalls): number {
  return (calls.evalsha ?? 0) + (calls.eval ?? 0);
}

/**
 * Microseconds Redis spent executing `commands` (those clients send). A script's time
 * includes what it runs inside, which Redis also books under those commands' own names,
 * so summing every command would count it twice.
 */
export async function serverMicros(ports: readonly number[], commands: readonly string[]): Promise<number> {
  let micros = 0;
  for (const port of ports) {
    const info = await rawCommand(port, 'INFO commandstats');
    for (const [, name = '', usec] of info.matchAll(/^cmdstat_([^:]+):calls=\d+,usec=(\d+)/gm)) {
      if (commands.includes(name)) micros += Number(usec);
    }
  }
  return micros;
}

/**
 * A worker script run on the real Workers runtime: bundled by esbuild as Wrangler would,
 * served by `workerd` through miniflare on a loopback port. Under `CI=true` a runtime
 * that cannot start fails the suite; locally the suite is skipped with a visible warning.
 */
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';

/** A worker listening on loopback. */
export interface RunningWorker {
  readonly url: URL;
  dispose(): Promise<void>;
}

/** Bundles `entry` (tsconfig paths resolve `answer-once/…` to src/) into one ES module for workerd. */
export async function bundleWorker(entry: string): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    logLevel: 'silent',
  });
  return outputFiles[0]!.text;
}

/** Starts `script` on workerd with `bindings` (its `env`). */
export async function startWorker(script: string, bindings: Record<string, string>): Promise<RunningWorker> {
  const miniflare = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-09-01',
    host: '127.0.0.1',
    port: 0,
    bindings,
  });
  try {
    return { url: await miniflare.ready, dispose: () => miniflare.dispose() };
  } catch (error) {
    await miniflare.dispose().catch(() => undefined);
    throw error;
  }
}

/**
 * Runs `start`; a failure throws under `CI=true` (CI never passes by skipping) and is
 * otherwise warned about once, loudly, resolving `undefined` so the suite skips.
 */
export async function orSkip<T>(start: () => Promise<T>): Promise<T | undefined> {
  try {
    return await start();
  } catch (error) {
    const message = `answer-once workers suite: workerd (miniflare) did not start: ${String(error)}`;
    if (process.env.CI === 'true') throw new Error(message, { cause: error });
    console.warn(`\n⚠️  ${message} Skipping the Workers suite.\n`);
    return undefined;
  }
}

/**
 * Builds the chat page with Vite's JS API, in memory (nothing written to disk, so two
 * demo processes never race on one output folder), and serves the result.
 */
import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';

export interface PageAsset {
  readonly body: Uint8Array<ArrayBuffer> | string;
  readonly type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/** Bundles `web/` (React + answer-once, production mode); resolves path → asset. */
export async function buildPage(): Promise<ReadonlyMap<string, PageAsset>> {
  const result = await build({
    root: fileURLToPath(new URL('./web', import.meta.url)),
    configFile: false,
    logLevel: 'warn',
    mode: 'production',
    resolve: { tsconfigPaths: true },
    build: { write: false, sourcemap: false, reportCompressedSize: false },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const assets = new Map<string, PageAsset>();
  for (const { output } of outputs) {
    for (const file of output) {
      const body =
        file.type === 'chunk' ? file.code : typeof file.source === 'string' ? file.source : new Uint8Array(file.source);
      const extension = file.fileName.slice(file.fileName.lastIndexOf('.'));
      assets.set(`/${file.fileName}`, { body, type: TYPES[extension] ?? 'application/octet-stream' });
    }
  }
  if (!assets.has('/index.html')) throw new Error('chat demo: the page build produced no index.html');
  return assets;
}

/** Answers GET/HEAD for a built asset; `/` (and any unknown path without a dot) is the page. */
export function servePage(assets: ReadonlyMap<string, PageAsset>, request: Request): Response {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response('Method Not Allowed', { status: 405, headers: { Allow: 'GET, HEAD' } });
  }
  const { pathname } = new URL(request.url);
  const asset = assets.get(pathname) ?? (pathname.includes('.') ? undefined : assets.get('/index.html'));
  if (!asset) return new Response('Not Found', { status: 404 });
  const immutable = pathname.startsWith('/assets/');
  return new Response(request.method === 'HEAD' ? null : asset.body, {
    headers: {
      'Content-Type': asset.type,
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
  });
}

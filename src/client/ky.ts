/**
 * The one module of the client that imports ky's runtime, so a bundle of the client
 * carries a single `import … from 'ky'` (esbuild keeps one per importing module).
 *
 * ky's default instance leaves as a binding of this module, not as a re-export: the
 * build puts this module in a chunk several entries share, and there esbuild re-exports
 * an imported default under the name `default`, which made a CommonJS chunk with a
 * default export beside named ones (Rollup warned; a `require()` of it needs `.default`).
 */
import kyInstance, { ForceRetryError, isHTTPError, isNetworkError, isTimeoutError, replaceOption } from 'ky';

export const ky = kyInstance;
export { ForceRetryError, isHTTPError, isNetworkError, isTimeoutError, replaceOption };

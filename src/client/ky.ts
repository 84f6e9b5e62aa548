/**
 * The one module of the client that imports ky's runtime, so a bundle of the client
 * carries a single `import … from 'ky'` (esbuild keeps one per importing module).
 */
export { default, ForceRetryError, isHTTPError, isNetworkError, isTimeoutError, replaceOption } from 'ky';

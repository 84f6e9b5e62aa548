import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] the cap on the result's or error's cost (absent: none, `define.ts`)
 *
 * Returns `{0, now, s, f, t, l, c, r, e, d, g, x, n, p, a, v}` (nils when absent), in
 * the shape of a refused acquire. A script rather than HGETALL so the reply carries Redis's
 * clock: lease deadlines are then translated into the caller's clock, whatever its skew.
 */
export const READ = defineScript(
  'read',
  `
return record(redis.call('HMGET', KEYS[1], unpack(FIELDS)), tonumber(ARGV[1] or ''))
`,
);

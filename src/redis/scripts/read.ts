import { defineScript } from './define.js';

/**
 * KEYS[1] record. Returns `{0, now, s, f, t, l, c, r, e, d}` (nils when absent), in the
 * shape of a refused acquire. A script rather than HGETALL so the reply carries Redis's
 * clock: lease deadlines are then translated into the caller's clock, whatever its skew.
 */
export const READ = defineScript(
  'read',
  `
local r = redis.call('HMGET', KEYS[1], unpack(FIELDS))
return {0, now, r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]}
`,
);

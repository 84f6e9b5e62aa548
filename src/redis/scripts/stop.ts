import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] generation of the stop's position (empty: none) · ARGV[2] its
 * offset · ARGV[3] the store's stop channel
 *
 * Asks the holder to stop (PROTOCOL.md § 14.8): a PROCESSING record gets `x = 1` (kept
 * until it settles; a claim's new record starts without it); the holder's watchStop,
 * wherever it runs, is woken by the record's name published on the store's one stop
 * channel (plain pub/sub: no slot, so a store subscribes once, not once per run), and
 * readers by a sharded publish on the record's name. A position of the record's answer
 * generation (`a` when it continues one, § 14.12, else `g`) is kept as `p` (where the holder ends the stored answer) unless a stop
 * already set it. A settled record is left alone. Returns `stopping`, `settled` or
 * `unknown` (no record).
 */
export const STOP = defineScript(
  'stop',
  `
local state = redis.call('HGET', KEYS[1], 's')
if not state then return 'unknown' end
if state ~= 'processing' then return 'settled' end
redis.call('HSET', KEYS[1], 'x', '1')
local answer = redis.call('HMGET', KEYS[1], 'a', 'g')
if ARGV[1] ~= '' and ARGV[1] == (answer[1] or answer[2]) then
  redis.call('HSETNX', KEYS[1], 'p', ARGV[2])
end
redis.call('SPUBLISH', KEYS[1], 'stop')
redis.call('PUBLISH', ARGV[3], KEYS[1])
return 'stopping'
`,
);

/** The stores' one stop channel, what ARGV[3] names (plain pub/sub; the messages are record names). */
export const stopChannelOf = (prefix: string): string => `${prefix}answer-once:stops`;

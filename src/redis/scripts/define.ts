import { createHash } from 'node:crypto';

/** A Lua script run with EVALSHA; `sha1` is what Redis caches it under. */
export interface RedisScript {
  readonly name: string;
  readonly source: string;
  readonly sha1: string;
}

/**
 * Lua shared by every script. The record is one hash, so every script touches exactly
 * one key (one Cluster slot):
 *
 * | field | meaning                                   | states                 |
 * | ----- | ----------------------------------------- | ---------------------- |
 * | `s`   | state: processing / completed / failed    | all                    |
 * | `f`   | fingerprint                               | all                    |
 * | `t`   | fencing token                             | processing             |
 * | `l`   | lease deadline, Redis clock, epoch ms     | processing             |
 * | `c`   | created, Redis clock, epoch ms            | all                    |
 * | `r`   | result                                    | completed              |
 * | `e`   | error                                     | failed                 |
 * | `d`   | completed/failed at, Redis clock, epoch ms| completed, failed      |
 *
 * Time is Redis's own (`TIME`), so the clocks of the server instances never matter.
 */
const PRELUDE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function ms(n) return string.format('%d', n) end
local FIELDS = {'s', 'f', 't', 'l', 'c', 'r', 'e', 'd'}
`;

export function defineScript(name: string, body: string): RedisScript {
  const source = `-- answer-once/redis: ${name}\n${PRELUDE}\n${body.trim()}\n`;
  return Object.freeze({ name, source, sha1: createHash('sha1').update(source).digest('hex') });
}

/**
 * The name of an intent's answer log (a Redis Stream), derived from its record's key so
 * that both hash to the same Cluster slot (PROTOCOL.md § 4.3): scripts that touch both
 * must, or a Cluster refuses them (CROSSSLOT).
 *
 * - a key with a hash tag (`answer-once:{user::id}`, what the handler builds): the tag
 *   is kept, the suffix added after it: `answer-once:{user::id}:log`;
 * - a key without one hashes whole, so the log wraps the whole key in a tag:
 *   `{key}:log` (possible when the key holds no `}`; otherwise there is no name on its
 *   slot that Redis would hash the same, and the store refuses the key by name).
 */
export function logKeyOf(recordKey: string): string {
  const open = recordKey.indexOf('{');
  const close = open < 0 ? -1 : recordKey.indexOf('}', open + 1);
  if (close > open + 1) return `${recordKey}:log`; // a non-empty tag: Redis hashes only it
  if (!recordKey.includes('}')) return `{${recordKey}}:log`;
  throw new TypeError(
    `answer-once/redis: expected \`key\` to carry a Redis Cluster hash tag ({…}) or no \`}\` at all, got ${JSON.stringify(recordKey)}`,
  );
}

/**
 * The scopes of {@link MemoryStore} in the order they give up a record when it is full,
 * fairly: only a scope that would still hold at least as many records as the newcomer's
 * (the newcomer's own scope included) is eligible — the largest first. Usually the
 * largest has something to give, so the rest is sorted only if the caller asks for more.
 */
export function* evictionOrder(
  scopes: ReadonlyMap<string, ReadonlySet<string>>,
  own: string,
): Generator<ReadonlySet<string>, void, undefined> {
  const ownSize = scopes.get(own)?.size ?? 0;
  let largest: ReadonlySet<string> | undefined;
  for (const [scope, keys] of scopes) {
    if ((scope === own || keys.size > ownSize) && keys.size > (largest?.size ?? 0)) largest = keys;
  }
  if (!largest) return;
  yield largest;
  const eligible = [...scopes].filter(([scope, keys]) => keys !== largest && (scope === own || keys.size > ownSize));
  eligible.sort(([, a], [, b]) => b.size - a.size);
  for (const [, keys] of eligible) yield keys;
}

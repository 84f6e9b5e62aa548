/**
 * The one pause the specs take: resolves after `ms` milliseconds on the global timer, so a
 * spec that has installed fake timers advances it with them.
 */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `shareTabs()`: the client option that makes the tabs of one origin reading one intent
 * share one network stream. The tab holding the intent's Web Lock reads the answer and
 * hands every chunk, with its position, to the others over a `BroadcastChannel`; when it
 * closes, the lock passes to a waiting tab, which carries on from the last chunk it had
 * (PROTOCOL.md § 14.5). Without Web Locks or `BroadcastChannel` (old browsers, runtimes
 * without them), every tab reads its own stream, as without the option.
 */
import { functionOption, invalidOption, optionsObject } from '../../core/options.js';
import type { TabChannel, TabLocks, TabSharing } from '../extensions.js';
import { sharedAnswer } from './shared-answer.js';

export interface TabSharingOptions {
  /**
   * The lock manager: one tab holds an intent's lock while it reads the intent's answer.
   * @default globalThis.navigator?.locks
   */
  locks?: TabLocks;
  /**
   * Opens the channel of one name that every tab of the origin shares.
   * @default (name) => new BroadcastChannel(name)
   */
  channel?: (name: string) => TabChannel;
}

/**
 * Shares each streamed intent between the tabs of the origin (`createClient({ tabs: shareTabs() })`):
 * one network stream and one reader per intent however many tabs resume it. Resolved on
 * first use, so creating it during server-side rendering is safe.
 */
export function shareTabs(options: TabSharingOptions = {}): TabSharing {
  const { locks, channel } = optionsObject(options, 'options');
  if (locks !== undefined && (typeof locks !== 'object' || locks === null || typeof locks.request !== 'function'))
    invalidOption('locks', 'a lock manager ({ request }, as navigator.locks)', locks);
  functionOption(channel, 'channel');
  return {
    share(requestId, open, shareOptions) {
      const found = locks ?? (globalThis as { navigator?: { locks?: TabLocks } }).navigator?.locks;
      const Channel = (globalThis as { BroadcastChannel?: new (name: string) => TabChannel }).BroadcastChannel;
      const opener = channel ?? (Channel ? (name: string) => new Channel(name) : undefined);
      if (!found || !opener) return undefined;
      return sharedAnswer({ locks: found, channel: opener }, requestId, open, shareOptions);
    },
  };
}

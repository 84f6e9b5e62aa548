import { optionsObject, stringOption } from '../../core/options.js';
import { resuming } from './resuming.js';
import { byCreatedAt, claimsStoredIntent, type StorageAdapter, type StoredIntent } from './types.js';

/** Options of the Web Storage adapters. */
export interface WebStorageAdapterOptions {
  /**
   * Prefix of the keys written, one key per intent (`<prefix><requestId>`).
   * @default 'answer-once:'
   */
  prefix?: string;
}

/** `WebStorageAdapterOptions` defaults. */
const DEFAULTS = /* @__PURE__ */ Object.freeze({ prefix: 'answer-once:' });

type WebStorageName = 'sessionStorage' | 'localStorage';

/**
 * Pending intents in a Web Storage area (`sessionStorage`, `localStorage`, or any object
 * with the `Storage` interface). Entries under the prefix that are not JSON records of
 * this version under their own key are skipped; the others are listed as they are, and
 * `resume()` checks them before it sends anything.
 */
export function webStorageAdapter(
  storage: Storage | (() => Storage),
  options: WebStorageAdapterOptions = {},
): StorageAdapter {
  const { prefix = DEFAULTS.prefix } = optionsObject(options, 'options');
  stringOption(prefix, 'prefix', 'a non-empty string', (value) => value !== '');
  const area = typeof storage === 'function' ? storage : () => storage;
  return {
    resuming,
    save(intent) {
      area().setItem(prefix + intent.requestId, JSON.stringify(intent));
    },
    remove(requestId) {
      area().removeItem(prefix + requestId);
    },
    list() {
      const store = area();
      const intents: StoredIntent[] = [];
      for (let i = 0; i < store.length; i++) {
        const key = store.key(i);
        if (key === null || !key.startsWith(prefix)) continue;
        try {
          const value: unknown = JSON.parse(store.getItem(key) ?? '');
          // Under its own key only: `remove(requestId)` must reach it.
          if (claimsStoredIntent(value) && key === prefix + value.requestId) intents.push(value);
        } catch {
          // Not ours, or corrupted: leave it alone.
        }
      }
      return intents.sort(byCreatedAt);
    },
  };
}

function globalArea(name: WebStorageName): () => Storage {
  return () => {
    const area = (globalThis as { [key in WebStorageName]?: Storage })[name];
    if (!area) {
      throw new TypeError(`answer-once: ${name} is not available here; use memoryStorageAdapter() outside the browser.`);
    }
    return area;
  };
}

/**
 * Pending intents in `sessionStorage`: they survive a reload of this tab, not a new tab.
 * Resolved on first use, so creating it during server-side rendering is safe.
 */
export function sessionStorageAdapter(options: WebStorageAdapterOptions = {}): StorageAdapter {
  return webStorageAdapter(globalArea('sessionStorage'), options);
}

/**
 * Pending intents in `localStorage`: every tab of the origin sees them, so whichever
 * resumes first finishes them (the server answers each ID once).
 */
export function localStorageAdapter(options: WebStorageAdapterOptions = {}): StorageAdapter {
  return webStorageAdapter(globalArea('localStorage'), options);
}

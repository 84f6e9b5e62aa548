/**
 * Whether the page a tab-sharing reader lives in is going away, so it takes nothing over
 * (./shared-answer.ts). `pagehide` says the page is gone. It comes late: a reload or a
 * navigation keeps the old page, its Web Locks and its place in their queues, until the
 * next page's response arrives — on a loaded machine or a slow network, seconds after the
 * navigation started. A lock passed to such a page then starts a read that ends with it,
 * and the next tab reads again. `beforeunload` comes when the navigation starts: from
 * then on the page waits to see whether it goes. A handler may cancel the navigation, and
 * a download fires `beforeunload` too, so a page still here `stayAfterMs` later stayed.
 */

/** How long after `beforeunload` a page that is still here is taken to have stayed. */
const STAY_AFTER_MS = 3_000;

/** What a page's lifecycle events are dispatched on (the `window`). */
interface PageEvents {
  addEventListener(type: string, listener: () => void): void;
}

export interface PageLeaving {
  /** Resolves `true` once the page is here to stay (at once, unless a navigation started), `false` when it went. */
  staying(): Promise<boolean>;
}

export function watchPageLeaving(page: PageEvents, stayAfterMs = STAY_AFTER_MS): PageLeaving {
  let gone = false;
  /** A navigation started and the page has not gone or stayed yet. */
  let leaving: { readonly settled: Promise<boolean>; readonly settle: (staying: boolean) => void } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const settle = (staying: boolean) => {
    clearTimeout(timer);
    leaving?.settle(staying);
    leaving = undefined;
  };
  page.addEventListener('beforeunload', () => {
    if (leaving || gone) return;
    let resolve!: (staying: boolean) => void;
    const settled = new Promise<boolean>((ok) => (resolve = ok));
    leaving = { settled, settle: resolve };
    timer = setTimeout(() => settle(true), stayAfterMs);
  });
  page.addEventListener('pagehide', () => {
    gone = true;
    settle(false);
  });
  // Back from the back/forward cache: here again.
  page.addEventListener('pageshow', () => {
    gone = false;
    settle(true);
  });

  return {
    staying: () => (gone ? Promise.resolve(false) : (leaving?.settled ?? Promise.resolve(true))),
  };
}

let watched: PageLeaving | undefined;

/** The page this code runs in, watched from first use (`staying()` is `true` where there is no page). */
export function thisPage(): PageLeaving {
  const page = globalThis as Partial<PageEvents>;
  watched ??=
    typeof page.addEventListener === 'function' ? watchPageLeaving(page as PageEvents) : { staying: async () => true };
  return watched;
}

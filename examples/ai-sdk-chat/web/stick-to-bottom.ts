/**
 * Keeps the newest message in view, as chat apps do: whenever the conversation's height
 * changes — a token, a stopped mark, a queued message, the offline line, another tab's
 * answer — the page scrolls to its end, unless the person scrolled up to read. Scrolling
 * back to the end, or sending, pins it again.
 */
import { type RefObject, useCallback, useEffect, useRef } from 'react';

/** How close to the end still counts as "at the end", in px. */
const NEAR_END_PX = 48;

const toEnd = () => window.scrollTo({ top: document.documentElement.scrollHeight });

/** Watches `list` (the element the messages are in); returns `pin`, which scrolls to the end and stays there. */
export function useStickToBottom(list: RefObject<HTMLElement | null>): () => void {
  const pinned = useRef(true);
  useEffect(() => {
    const element = list.current;
    if (!element) return;
    // Only the person scrolling up unpins: content growing below, or the page's own
    // scroll landing a frame after more text arrived, leaves it pinned.
    let last = window.scrollY;
    const onScroll = () => {
      const { scrollHeight } = document.documentElement;
      if (scrollHeight - (window.scrollY + window.innerHeight) <= NEAR_END_PX) pinned.current = true;
      else if (window.scrollY < last) pinned.current = false;
      last = window.scrollY;
    };
    const observer = new ResizeObserver(() => pinned.current && toEnd());
    observer.observe(element);
    addEventListener('scroll', onScroll, { passive: true });
    return () => {
      observer.disconnect();
      removeEventListener('scroll', onScroll);
    };
  }, [list]);
  return useCallback(() => {
    pinned.current = true;
    toEnd();
  }, []);
}

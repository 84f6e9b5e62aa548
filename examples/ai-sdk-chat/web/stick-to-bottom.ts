/**
 * Keeps the newest message in view, as chat apps do: after every render of the chat —
 * a token, a stopped mark, a queued message, the offline line, another tab's answer — the
 * page scrolls to its end, unless the person scrolled up to read. Scrolling back to the
 * end, or sending, pins it again. (After the render, as a passive effect: scrolling inside
 * the frame, from a ResizeObserver, delays the chat's next render under load, and a Stop
 * then keeps a word more than the screen showed.)
 */
import { useCallback, useEffect, useRef } from 'react';

/** How close to the end still counts as "at the end", in px. */
const NEAR_END_PX = 48;

const toEnd = () => window.scrollTo({ top: document.documentElement.scrollHeight });

/** Call in the component that renders the chat; returns `pin`, which scrolls to the end and stays there. */
export function useStickToBottom(): () => void {
  const pinned = useRef(true);
  useEffect(() => {
    // Only the person scrolling up unpins: content growing below, or the page's own
    // scroll landing after more text arrived, leaves it pinned.
    let last = window.scrollY;
    const onScroll = () => {
      const { scrollHeight } = document.documentElement;
      if (scrollHeight - (window.scrollY + window.innerHeight) <= NEAR_END_PX) pinned.current = true;
      else if (window.scrollY < last) pinned.current = false;
      last = window.scrollY;
    };
    addEventListener('scroll', onScroll, { passive: true });
    return () => removeEventListener('scroll', onScroll);
  }, []);
  // No dependencies: every render may have grown the chat.
  useEffect(() => {
    if (pinned.current) toEnd();
  });
  return useCallback(() => {
    pinned.current = true;
    toEnd();
  }, []);
}

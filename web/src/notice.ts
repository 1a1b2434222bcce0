// Success messages ("Prompt saved", "Key revoked") are transient: they go after a few seconds, and as soon as
// the person starts something else, so an old "Saved." never sits next to the result of a later action.
import { useCallback, useEffect, useState } from 'react';

/** How long a success message stays when nothing else happens. */
export const NOTICE_MS = 6000;

/** What starts an action: pressing a button or link, ticking a box, choosing from a list, sending a form. */
const ACTION = 'button, a[href], summary, select, input[type="checkbox"], input[type="radio"], input[type="submit"]';

export interface NoticeState {
  message: string;
  show: (message: string) => void;
  clear: () => void;
}

export function useNotice(initial = '', timeoutMs = NOTICE_MS): NoticeState {
  // `shown` counts messages, so showing the same text again restarts its time.
  const [state, setState] = useState({ message: initial, shown: 0 });
  const show = useCallback((message: string) => setState((previous) => ({ message, shown: previous.shown + 1 })), []);
  const clear = useCallback(
    () => setState((previous) => (previous.message ? { message: '', shown: previous.shown + 1 } : previous)),
    [],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: each shown message (state.shown) gets its own timer
  useEffect(() => {
    if (!state.message) return;
    const timer = window.setTimeout(clear, timeoutMs);
    // Capture phase: the action that showed this message has finished propagating by the time it is shown,
    // so only later ones clear it. The message's own Dismiss button is not "something else".
    const onAction = (event: Event) => {
      const target = event.target;
      if (!(target instanceof Element) || target.closest('[data-notice]')) return;
      if (event.type === 'submit' || target.closest(ACTION)) clear();
    };
    document.addEventListener('click', onAction, true);
    document.addEventListener('submit', onAction, true);
    return () => {
      window.clearTimeout(timer);
      document.removeEventListener('click', onAction, true);
      document.removeEventListener('submit', onAction, true);
    };
  }, [state.shown, timeoutMs, clear]);

  return { message: state.message, show, clear };
}

// A one-time message carried from one page to the next (e.g. "Prompt saved" after leaving the editor).
import { useEffect } from 'react';
import { type NoticeState, useNotice } from './notice';

let pending = '';

export function setFlash(message: string): void {
  pending = message;
}

/** The page's success message, starting with the pending one (which is used up once the page has mounted). */
export function useFlash(): NoticeState {
  const notice = useNotice(pending);
  useEffect(() => {
    pending = '';
  }, []);
  return notice;
}

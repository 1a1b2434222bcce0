// A one-time message carried from one page to the next (e.g. "Prompt saved" after leaving the editor).
import { useEffect, useState } from 'react';

let pending = '';

export function setFlash(message: string): void {
  pending = message;
}

/** The pending message as initial notice state; it is cleared once the page has mounted. */
export function useFlash(): [string, (message: string) => void] {
  const [message, setMessage] = useState(() => pending);
  useEffect(() => {
    pending = '';
  }, []);
  return [message, setMessage];
}

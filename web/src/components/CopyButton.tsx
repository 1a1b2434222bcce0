import { useEffect, useState } from 'react';

/** Copies `text` with the Clipboard API; says whether it worked. */
export function CopyButton({ text, label = 'Copy', testId }: { text: string; label?: string; testId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2500);
    return () => window.clearTimeout(timer);
  }, [state]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };

  return (
    <span className="copy">
      <button type="button" className="button button-small" onClick={copy} data-testid={testId}>
        {label}
      </button>
      <span className="copy-status" role="status" aria-live="polite">
        {state === 'copied' && 'Copied to the clipboard.'}
        {state === 'failed' && 'Copying failed: select the text and copy it yourself.'}
      </span>
    </span>
  );
}

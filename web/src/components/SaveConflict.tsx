import { href } from '../router';

interface SaveConflictProps {
  slug: string;
  /** The version the editor loaded (and sent as If-Match). */
  loaded: number;
  onReload: () => void;
}

/** A save refused with 412: the prompt changed elsewhere. Nothing is overwritten; the user decides. */
export function SaveConflict({ slug, loaded, onReload }: SaveConflictProps) {
  return (
    <div className="alert alert-error" role="alert" data-testid="prompt-conflict">
      <p>
        <strong>This prompt was changed elsewhere after you opened it.</strong> You were editing version {loaded}; your
        edits were not saved and are still in the form. Reload to continue from the latest version (your edits here are
        discarded, so copy anything you want to keep first).
      </p>
      <div className="actions">
        <button type="button" className="button button-small" onClick={onReload} data-testid="prompt-conflict-reload">
          Reload the latest version
        </button>
        <a
          href={href(['prompts', slug, 'history'], { from: String(loaded) })}
          target="_blank"
          rel="noopener"
          data-testid="prompt-conflict-changes"
        >
          See what changed (opens a new tab)
        </a>
      </div>
    </div>
  );
}

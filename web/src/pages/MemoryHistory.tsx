import { useState } from 'react';
import type { MemoryVersionSummary } from '../../../src/contract';
import { api } from '../api';
import { useConfirm } from '../components/Confirm';
import { Pager } from '../components/Pager';
import { ErrorAlert, Loaded, Loading } from '../components/Status';
import { setFlash } from '../flash';
import { formatDate } from '../format';
import { useResource, useTitle } from '../hooks';
import { href, navigate } from '../router';

/** A memory's history: every kept version, newest first, each readable whole and restorable. */
export function MemoryHistory({ memoryId }: { memoryId: string }) {
  useTitle('Memory history');
  const confirm = useConfirm();
  const [page, setPage] = useState(1);
  const [error, setError] = useState<unknown>();
  const versions = useResource(`memory-versions:${memoryId}:${page}`, (signal) =>
    api.memoryVersions(memoryId, page, signal),
  );

  const restore = async (item: MemoryVersionSummary) => {
    const ok = await confirm({
      title: `Restore version ${item.version}?`,
      message: 'Its text, project and metadata become the memory again, as a new version; the current one is kept.',
      confirmLabel: `Restore version ${item.version}`,
    });
    if (!ok) return;
    setError(undefined);
    try {
      const restored = await api.restoreMemory(memoryId, item.version);
      setFlash(`${restored.message}.`);
      navigate(href(['memories', memoryId]));
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <section className="page page-narrow">
      <p className="breadcrumb">
        <a href={href(['memories'])}>Memories</a> / <a href={href(['memories', memoryId])}>Edit memory</a>
      </p>
      <h1>Memory history</h1>
      <p className="hint">
        Newest first. Each change of the text, project or metadata keeps the version it replaced; restoring one saves it
        again as the newest, and no version is lost.
      </p>
      <ErrorAlert error={error} />
      <Loaded resource={versions} loading="Loading versions…">
        {(data) => (
          <>
            <ol className="rows" data-testid="memory-history-list">
              {data.versions.map((item) => (
                <VersionRow key={item.version} memoryId={memoryId} item={item} onRestore={() => restore(item)} />
              ))}
            </ol>
            <Pager page={page} perPage={data.per_page} total={data.total} onPage={setPage} />
          </>
        )}
      </Loaded>
    </section>
  );
}

interface VersionRowProps {
  memoryId: string;
  item: MemoryVersionSummary;
  onRestore: () => void;
}

function VersionRow({ memoryId, item, onRestore }: VersionRowProps) {
  const [open, setOpen] = useState(false);
  return (
    <li
      className="row"
      data-testid="memory-history-row"
      data-version={item.version}
      aria-current={item.current ? 'true' : undefined}
    >
      <div className="row-head">
        <span className="row-title">Version {item.version}</span>
        {item.current && <span className="badge badge-ok">current</span>}
      </div>
      <p className="row-meta">
        {formatDate(item.created_at)} · {item.project_name ?? 'global'}
      </p>
      {open ? (
        <WholeVersion memoryId={memoryId} version={item.version} />
      ) : (
        <p className="row-text" data-testid="memory-history-preview">
          {item.text_preview}
          {item.text_length > item.text_preview.length && '…'}
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          className="button button-small"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
          data-testid="memory-history-show"
        >
          {open ? 'Hide' : 'Show all'}
        </button>
        {!item.current && (
          <button
            type="button"
            className="button button-small"
            onClick={onRestore}
            data-testid="memory-history-restore"
          >
            Restore…
          </button>
        )}
      </div>
    </li>
  );
}

function WholeVersion({ memoryId, version }: { memoryId: string; version: number }) {
  const whole = useResource(`memory-version:${memoryId}:${version}`, (signal) =>
    api.memoryVersion(memoryId, version, signal),
  );
  if (whole.data === undefined && whole.error === undefined) return <Loading label="Loading the version…" />;
  return (
    <Loaded resource={whole} loading="Loading the version…">
      {(data) => (
        <div className="stack-small" data-testid="memory-history-whole">
          <p className="row-text pre-wrap">{data.text}</p>
          <pre className="mono">{JSON.stringify(data.metadata, null, 2)}</pre>
        </div>
      )}
    </Loaded>
  );
}

import { useState } from 'react';
import type { Prompt, PromptEnvironment, PromptVersionSummary } from '../../../src/contract';
import { ApiError, api } from '../api';
import { useConfirm } from '../components/Confirm';
import { Pager } from '../components/Pager';
import { PromptEnvironments } from '../components/PromptEnvironments';
import { BACK_TO_PROMPTS, PromptHeader } from '../components/PromptHeader';
import { ErrorAlert, Loaded, Loading, PageLoadError } from '../components/Status';
import { RestoreFields, VersionCompare } from '../components/VersionCompare';
import { setFlash } from '../flash';
import { formatDate } from '../format';
import { useResource, useTitle } from '../hooks';
import { href, navigate } from '../router';

interface PromptHistoryProps {
  slug: string;
  /** The versions to compare (from the route's `?from=&to=`); default: the previous and the current one. */
  from: number | undefined;
  to: number | undefined;
}

export function PromptHistory({ slug, from, to }: PromptHistoryProps) {
  const prompt = useResource(`prompt:${slug}`, (signal) => api.prompt(slug, signal));
  const environments = useResource(`prompt-environments:${slug}`, (signal) => api.promptEnvironments(slug, signal));
  const [notice, setNotice] = useState('');
  useTitle('Prompt history');
  if (prompt.error !== undefined) {
    return (
      <PageLoadError heading="Prompt history" error={prompt.error} onRetry={prompt.reload} back={BACK_TO_PROMPTS} />
    );
  }
  if (!prompt.data) return <Loading label="Loading the prompt…" />;
  const current = prompt.data;
  const before = from ?? Math.max(1, current.version - 1);
  const after = to ?? current.version;
  return (
    <section className="page">
      <PromptHeader prompt={current} current="history" heading={`History of “${current.title}”`} />
      {current.version === 1 ? (
        <p className="hint">Only one version so far: each save that changes the prompt adds one.</p>
      ) : (
        <VersionCompare
          prompt={current}
          before={before}
          after={after}
          onPick={(a, b) =>
            navigate(href(['prompts', slug, 'history'], { from: String(a), to: String(b) }), { replace: true })
          }
        />
      )}
      {notice && (
        <p className="notice" role="status" data-testid="environment-notice">
          {notice}
        </p>
      )}
      <PromptEnvironments
        prompt={current}
        environments={environments.data?.environments ?? []}
        onChanged={(message) => {
          setNotice(message);
          environments.reload();
        }}
      />
      <Versions prompt={current} environments={environments.data?.environments ?? []} onStale={prompt.reload} />
    </section>
  );
}

function Versions({
  prompt,
  environments,
  onStale,
}: {
  prompt: Prompt;
  environments: PromptEnvironment[];
  onStale: () => void;
}) {
  const confirm = useConfirm();
  const [page, setPage] = useState(1);
  const [error, setError] = useState<unknown>();
  const versions = useResource(`prompt-versions:${prompt.id}@${prompt.version}:${page}`, (signal) =>
    api.promptVersions(prompt.id, page, signal),
  );

  const restore = async (item: PromptVersionSummary) => {
    let message = '';
    const ok = await confirm({
      title: `Restore version ${item.version}?`,
      message: (
        <RestoreFields
          version={item.version}
          next={prompt.version + 1}
          onMessage={(value) => {
            message = value;
          }}
        />
      ),
      confirmLabel: `Restore version ${item.version}`,
    });
    if (!ok) return;
    setError(undefined);
    try {
      const restored = await api.restorePrompt(prompt.id, item.version, message.trim(), prompt.version);
      setFlash(`${restored.message}.`);
      navigate(href(['prompts', prompt.slug, 'edit']));
    } catch (caught) {
      setError(caught);
      if (caught instanceof ApiError && caught.status === 412) onStale();
    }
  };

  return (
    <section className="card stack-small" aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <p className="hint">Newest first. Restoring a version saves it again as the newest; no version is lost.</p>
      <ErrorAlert error={error} />
      <Loaded resource={versions} loading="Loading versions…">
        {(data) => (
          <>
            <ol className="rows" data-testid="history-list">
              {data.versions.map((item) => (
                <VersionRow
                  key={item.version}
                  prompt={prompt}
                  item={item}
                  environments={environments.filter((e) => e.version === item.version).map((e) => e.name)}
                  onRestore={() => restore(item)}
                />
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
  prompt: Prompt;
  item: PromptVersionSummary;
  /** The environments pointing to this version. */
  environments: string[];
  onRestore: () => void;
}

function VersionRow({ prompt, item, environments, onRestore }: VersionRowProps) {
  const current = item.version === prompt.version;
  return (
    <li
      className="row"
      data-testid="history-row"
      data-version={item.version}
      aria-current={current ? 'true' : undefined}
    >
      <div className="row-head">
        <span className="row-title">Version {item.version}</span>
        {current && <span className="badge badge-ok">current</span>}
        {environments.map((name) => (
          <span key={name} className="badge" data-testid="history-environment">
            {name}
          </span>
        ))}
      </div>
      <p className="row-meta">
        {formatDate(item.created_at)} · {item.title}
      </p>
      {item.commit_message ? (
        <p className="row-text" data-testid="history-message">
          {item.commit_message}
        </p>
      ) : (
        <p className="hint">No commit message.</p>
      )}
      <div className="actions">
        {item.version > 1 && (
          <a
            className="button button-small"
            href={href(['prompts', prompt.slug, 'history'], {
              from: String(item.version - 1),
              to: String(item.version),
            })}
            // Show the pair picked: the comparison is at the top of the page.
            onClick={() => window.setTimeout(() => document.getElementById('compare-heading')?.focus())}
            data-testid="history-changes"
          >
            Changes in this version
          </a>
        )}
        {!current && (
          <button type="button" className="button button-small" onClick={onRestore} data-testid="history-restore">
            Restore…
          </button>
        )}
      </div>
    </li>
  );
}

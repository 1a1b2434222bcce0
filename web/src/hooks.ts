import { useCallback, useEffect, useRef, useState } from 'react';
import { isAbort } from './api';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads data whenever `key` changes (a string naming everything the loader depends on) and on reload().
 * Earlier requests are aborted, so a slow answer never overwrites a newer one.
 */
export function useResource<T>(key: string, loader: (signal: AbortSignal) => Promise<T>): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  const loaderRef = useRef(loader);
  loaderRef.current = loader;

  // biome-ignore lint/correctness/useExhaustiveDependencies: key and generation are what trigger a (re)load
  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ ...previous, loading: true, error: undefined }));
    loaderRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (!controller.signal.aborted && !isAbort(error)) {
          setState((previous) => ({ ...previous, error, loading: false }));
        }
      },
    );
    return () => controller.abort();
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** `value`, updated only after it has stopped changing for `delay` milliseconds. */
export function useDebounced<T>(value: T, delay = 300): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setDebounced(value), delay);
    return () => window.clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}

/** Sets the document title while a page is shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Cairn` : 'Cairn';
  }, [title]);
}

export interface ListFilters<F extends Record<string, string>> {
  /** The filters as they stand (for the controls, and for selects, which apply at once). */
  filters: F;
  /** The same, trimmed, once typing has paused: what typed filters query with. */
  typed: F;
  /** The setter of one filter; any change goes back to page 1. */
  set: (name: keyof F) => (value: string) => void;
  page: number;
  setPage: (page: number) => void;
}

/** The filters and page of a list. */
export function useListFilters<F extends Record<string, string>>(initial: F): ListFilters<F> {
  const [filters, setFilters] = useState(initial);
  const [page, setPage] = useState(1);
  const trimmed = Object.fromEntries(Object.entries(filters).map(([name, value]) => [name, value.trim()]));
  // Debounced as a string, so that it compares by value.
  const typed = JSON.parse(useDebounced(JSON.stringify(trimmed))) as F;
  const set = (name: keyof F) => (value: string) => {
    setFilters((previous) => ({ ...previous, [name]: value }));
    setPage(1);
  };
  return { filters, typed, set, page, setPage };
}

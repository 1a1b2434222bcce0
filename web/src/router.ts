// Hash routing: `#/prompts`, `#/artifacts/acme%2Fbackend/api-design?x=y`. Segments are decoded one by one, so
// an encoded `/` inside a segment (a project path) stays inside it.
import { useSyncExternalStore } from 'react';

export interface Route {
  /** Decoded path segments, e.g. ['artifacts', 'acme/backend', 'api-design']. */
  segments: string[];
  query: URLSearchParams;
}

function subscribe(callback: () => void): () => void {
  window.addEventListener('hashchange', callback);
  return () => window.removeEventListener('hashchange', callback);
}

const getHash = () => window.location.hash;

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = raw.split('?', 2);
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map(safeDecode);
  return { segments, query: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, getHash, getHash);
  return parseHash(hash);
}

type QueryInput = Record<string, string | undefined | null>;

/** Builds `#/a/b?x=1` from raw segments (each is encoded) and optional query parameters. */
export function href(segments: readonly (string | number)[], query?: QueryInput): string {
  const path = segments.map((segment) => encodeURIComponent(String(segment))).join('/');
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value) params.set(name, value);
  const search = params.toString();
  return `#/${path}${search ? `?${search}` : ''}`;
}

export function navigate(target: string, options: { replace?: boolean } = {}): void {
  if (options.replace) {
    const url = new URL(window.location.href);
    url.hash = target;
    window.history.replaceState(null, '', url);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = target;
  }
}

// Markdown rendered to React elements from markdown-it's token stream: no HTML string is ever injected.
// `html: false` makes raw HTML in the source plain text; links are limited to safe schemes.
import MarkdownIt, { type Token } from 'markdown-it';
import { createElement, Fragment, type ReactNode } from 'react';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

const TAGS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'em',
  'strong',
  's',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
]);

const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);

/** The link target if it is relative or uses a safe scheme, else undefined. */
export function safeHref(raw: string | null): string | undefined {
  if (!raw) return undefined;
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
  if (scheme && !SAFE_SCHEMES.has(scheme)) return undefined;
  return raw;
}

function attr(token: Token, name: string): string | null {
  const value = token.attrGet(name);
  return value === null ? null : String(value);
}

function attributes(token: Token): Record<string, unknown> {
  switch (token.tag) {
    case 'a': {
      const href = safeHref(attr(token, 'href'));
      return href ? { href, target: '_blank', rel: 'noopener noreferrer nofollow' } : {};
    }
    case 'ol': {
      const start = attr(token, 'start');
      return start !== null && /^\d+$/.test(start) ? { start: Number(start) } : {};
    }
    case 'th':
    case 'td': {
      const align = /text-align:\s*(left|right|center)/.exec(attr(token, 'style') ?? '')?.[1];
      return align ? { style: { textAlign: align } } : {};
    }
    default:
      return {};
  }
}

// Children are passed to createElement as separate arguments (a fixed list, not an array), so no keys are needed.
const group = (children: ReactNode[]): ReactNode => createElement(Fragment, null, ...children);

function leaf(token: Token): ReactNode {
  switch (token.type) {
    case 'inline':
      return group(renderTokens(token.children ?? []));
    case 'code_inline':
      return createElement('code', null, token.content);
    case 'softbreak':
      return '\n';
    case 'hardbreak':
      return createElement('br');
    case 'hr':
      return createElement('hr');
    case 'fence':
    case 'code_block':
      return createElement('pre', null, createElement('code', null, token.content));
    case 'image': {
      // Images are shown as links: loading remote images would tell third parties who reads what.
      const src = safeHref(attr(token, 'src'));
      const text = `[image: ${token.content || 'image'}]`;
      return src
        ? createElement('a', { href: src, target: '_blank', rel: 'noopener noreferrer nofollow' }, text)
        : text;
    }
    default:
      return token.content;
  }
}

interface Frame {
  token: Token;
  children: ReactNode[];
}

function renderTokens(tokens: Token[]): ReactNode[] {
  const root: ReactNode[] = [];
  const stack: Frame[] = [];
  const append = (node: ReactNode) => (stack.at(-1)?.children ?? root).push(node);
  for (const token of tokens) {
    if (token.nesting === 1) {
      stack.push({ token, children: [] });
    } else if (token.nesting === -1) {
      const frame = stack.pop();
      if (!frame) continue;
      const { token: open, children } = frame;
      // Hidden tokens are the paragraphs of tight lists: their content goes straight into the list item.
      if (open.hidden || !TAGS.has(open.tag)) append(group(children));
      else append(createElement(open.tag, attributes(open), ...children));
    } else {
      append(leaf(token));
    }
  }
  // Unclosed frames (markdown-it always closes them) would still show their text.
  for (let frame = stack.pop(); frame; frame = stack.pop()) append(group(frame.children));
  return root;
}

export function Markdown({ source }: { source: string }) {
  return createElement('div', { className: 'markdown' }, ...renderTokens(md.parse(source, {})));
}

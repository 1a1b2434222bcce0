// The server's own template rules (src/domain/prompts/template.ts), shared so that the live preview shows
// exactly the variables and references the server will find.
import {
  extractReferencedSlugs as extractReferences,
  extractVariables,
  MAX_REFERENCE_SLUG,
  REFERENCE,
  VARIABLE,
} from '../../src/domain/prompts/template';

export { extractReferences, extractVariables };

/** A piece of the content; `start` is its offset (unique, usable as a key). */
export type Segment =
  | { kind: 'text'; start: number; text: string }
  | { kind: 'variable'; start: number; text: string; name: string }
  | { kind: 'reference'; start: number; text: string; slug: string };

/** Splits content into plain text, variables and references, for highlighting. */
export function segmentContent(content: string): Segment[] {
  const found: { index: number; end: number; segment: Segment }[] = [];
  for (const match of content.matchAll(VARIABLE)) {
    const name = match[1] ?? '';
    found.push({
      index: match.index,
      end: match.index + match[0].length,
      segment: { kind: 'variable', start: match.index, text: match[0], name },
    });
  }
  for (const match of content.matchAll(REFERENCE)) {
    const slug = match[1] ?? '';
    if (slug.length > MAX_REFERENCE_SLUG) continue;
    found.push({
      index: match.index,
      end: match.index + match[0].length,
      segment: { kind: 'reference', start: match.index, text: match[0], slug },
    });
  }
  found.sort((a, b) => a.index - b.index);
  const segments: Segment[] = [];
  let position = 0;
  for (const item of found) {
    if (item.index < position) continue; // overlaps an earlier token
    if (item.index > position)
      segments.push({ kind: 'text', start: position, text: content.slice(position, item.index) });
    segments.push(item.segment);
    position = item.end;
  }
  if (position < content.length) segments.push({ kind: 'text', start: position, text: content.slice(position) });
  return segments;
}

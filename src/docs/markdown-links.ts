/**
 * Relative links in the repository's Markdown, and the anchors each file offers as GitHub renders
 * it, so the docs can be checked for links to a missing file or heading without any network.
 */

/** A link as written in a Markdown file: its target and the line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** The text outside fenced code blocks, with inline code blanked (links there are not links). */
function proseLines(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return '';
    }
    return fence === null ? line.replace(/(`+)[^`]*?\1/g, (code) => ' '.repeat(code.length)) : '';
  });
}

/** Inline links `[text](target "title")`, images included, and reference definitions `[id]: target`. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  proseLines(markdown).forEach((text, index) => {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1], line: index + 1 });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(text);
    if (definition) links.push({ target: definition[1], line: index + 1 });
  });
  return links;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' slugs (repeats numbered -1, -2…) and HTML ids and names. */
export function markdownAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence !== null) continue;
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = headingSlug(heading[1]);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const m of line.matchAll(/<[a-z]+[^>]*\s(?:id|name)="([^"]+)"/gi)) anchors.add(m[1]);
  }
  return anchors;
}

import type { Nodes, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { h, type ComponentChildren, type VNode } from 'preact';
import './render.ts';

// Markdown as elements, for the documentation the service serves (/docs/…): parsed by micromark
// with GitHub's extensions (tables, strikethrough, autolinks) into a syntax tree, and that tree
// made into elements here, so what it says passes the renderer's guard like any page: text is
// escaped, raw HTML in the Markdown is shown as text (an HTML comment, a note to the file's
// editors, is left out), and a link or image with an unsafe URL is blocked by the guard.
// Headings get GitHub's anchors, so a link to `file.md#heading` works the same served.

/**
 * GitHub's anchor of a heading (github-slugger's rule): lowercased; every character that is an
 * other number, punctuation (but `_`), a symbol, a control, format or unassigned code point or a
 * separator is dropped, unless it is alphabetic, a space or a hyphen; spaces become hyphens.
 */
const NOT_IN_SLUGS = /(?![\p{Alphabetic} -])[\p{No}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Po}\p{Pd}\p{S}\p{C}\p{Z}]/gu;
export function headingSlug(text: string): string {
  return text.toLowerCase().replace(NOT_IN_SLUGS, '').replace(/ /g, '-');
}

/** A footnote's anchor: `fn:` is never in a heading's slug, so the two cannot meet. */
const footnoteId = (identifier: string) => `fn:${encodeURIComponent(identifier)}`;

export interface MarkdownProps {
  source: string;
  /** Where a link or image of the file goes when served (a relative path in the repository, with its #anchor); null: shown as text. */
  resolve: (url: string, kind: 'link' | 'image') => string | null;
}

/** The plain text of a node, for headings' anchors and images' alternatives. */
function textOf(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string' && node.type !== 'html') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(textOf).join('');
  return '';
}

const isComment = (value: string) => /^<!--[\s\S]*-->$/.test(value.trim());

const parse = (source: string) => fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

/** Each heading's anchor in turn, repeats numbered as GitHub numbers them (`-1`, `-2`). */
function anchors(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const slug = headingSlug(text);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    return count === 0 ? slug : `${slug}-${count}`;
  };
}

function* walk(node: Nodes): Generator<Nodes> {
  yield node;
  if ('children' in node) for (const child of node.children as Nodes[]) yield* walk(child);
}

/** The reference definitions of a tree (`[name]: url`), by their normalised identifier. */
function definitionsOf(tree: Nodes): Map<string, string> {
  const found = new Map<string, string>();
  for (const node of walk(tree)) if (node.type === 'definition' && !found.has(node.identifier)) found.set(node.identifier, node.url);
  return found;
}

/**
 * What a Markdown file links to and the anchors its headings get: the same parse the served page is
 * made from (the links test reads it). A reference-style link is its definition's URL; one whose
 * definition is missing is text to Markdown (and to GitHub), not a link.
 */
export function markdownOutline(source: string): { links: Array<{ url: string; kind: 'link' | 'image' }>; anchors: Set<string> } {
  const tree = parse(source);
  const anchor = anchors();
  const links: Array<{ url: string; kind: 'link' | 'image' }> = [];
  const found = new Set<string>();
  for (const node of walk(tree)) {
    if (node.type === 'heading') found.add(anchor(textOf(node)));
    else if (node.type === 'link' || node.type === 'image') links.push({ url: node.url, kind: node.type });
    else if (node.type === 'definition') links.push({ url: node.url, kind: 'link' });
    else if (node.type === 'footnoteDefinition') found.add(footnoteId(node.identifier));
  }
  return { links, anchors: found };
}

export function Markdown({ source, resolve }: MarkdownProps): VNode {
  const tree = parse(source);
  const definitions = definitionsOf(tree);
  const anchor = anchors();

  const children = (node: { children: RootContent[] }, inTable?: { align: Array<string | null | undefined>; head: boolean }): ComponentChildren[] =>
    node.children.map((child, index) => element(child, index, inTable));
  /** Whether each list's items keep their paragraphs (a loose list: a blank line between items), as GitHub shows them. */
  const loose = new WeakSet<object>();

  function element(node: RootContent, index: number, table?: { align: Array<string | null | undefined>; head: boolean }): ComponentChildren {
    switch (node.type) {
      case 'heading': return h(`h${node.depth}` as 'h2', { id: anchor(textOf(node)) }, children(node));
      case 'paragraph': return h('p', null, children(node));
      case 'text': return node.value;
      case 'emphasis': return h('em', null, children(node));
      case 'strong': return h('strong', null, children(node));
      case 'delete': return h('del', null, children(node));
      case 'inlineCode': return h('code', null, node.value);
      case 'code': return h('pre', null, h('code', node.lang ? { class: `language-${node.lang.replace(/[^\w-]/g, '')}` } : null, node.value));
      case 'break': return h('br', null);
      case 'thematicBreak': return h('hr', null);
      case 'blockquote': return h('blockquote', null, children(node));
      case 'list':
        if (node.spread || node.children.some((item) => item.spread)) node.children.forEach((item) => loose.add(item));
        return h(node.ordered ? 'ol' : 'ul', node.ordered && node.start !== null && node.start !== undefined && node.start !== 1 ? { start: node.start } : null, children(node));
      case 'listItem': {
        // A task list's box, as text: done or not is read, not ticked (the page changes nothing).
        const box = typeof node.checked === 'boolean' ? (node.checked ? '☑ ' : '☐ ') : null;
        if (!loose.has(node)) return h('li', null, box, node.children.flatMap((child, at) => (child.type === 'paragraph' ? children(child) : [element(child, at)])));
        // A loose item keeps its paragraphs; the box opens the first, on its line.
        return h('li', null, node.children.map((child, at) => (at === 0 && child.type === 'paragraph' ? h('p', null, box, children(child)) : element(child, at))));
      }
      case 'link': {
        const href = resolve(node.url, 'link');
        return href === null ? h('span', null, children(node)) : h('a', { href }, children(node));
      }
      case 'image': {
        const src = resolve(node.url, 'image');
        return src === null ? h('span', null, node.alt ?? '') : h('img', { src, alt: node.alt ?? '', loading: 'lazy' });
      }
      case 'linkReference': {
        const url = definitions.get(node.identifier);
        const href = url === undefined ? null : resolve(url, 'link');
        return href === null ? h('span', null, children(node)) : h('a', { href }, children(node));
      }
      case 'imageReference': {
        const url = definitions.get(node.identifier);
        const src = url === undefined ? null : resolve(url, 'image');
        return src === null ? h('span', null, node.alt ?? '') : h('img', { src, alt: node.alt ?? '', loading: 'lazy' });
      }
      case 'definition': return null;
      case 'footnoteReference': return h('sup', null, h('a', { href: `#${footnoteId(node.identifier)}` }, node.label ?? node.identifier));
      case 'footnoteDefinition': return h('div', { class: 'footnote', id: footnoteId(node.identifier) }, h('span', null, `${node.label ?? node.identifier}. `), children(node));
      case 'table': {
        const [head, ...body] = node.children;
        const align = node.align ?? [];
        return h('div', { class: 'table-scroll', role: 'region', 'aria-label': head ? `Table: ${head.children.map(textOf).join(', ').slice(0, 80)}` : 'Table', tabIndex: 0 },
          h('table', null,
            head && h('thead', null, element(head, 0, { align, head: true })),
            h('tbody', null, body.map((row, at) => element(row, at, { align, head: false })))));
      }
      case 'tableRow': return h('tr', null, node.children.map((cell, at) => h(table?.head ? 'th' : 'td', table?.align[at] ? { class: `align-${table.align[at]}` } : null, children(cell))));
      case 'html': return isComment(node.value) ? null : node.value;
      default: return textOf(node as Nodes);
    }
  }

  return h('div', { class: 'markdown' }, tree.children.map((node, index) => element(node, index))) as VNode;
}

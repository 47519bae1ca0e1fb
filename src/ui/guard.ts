import { options, type VNode } from 'preact';
import { safeUrl } from './safe-url.ts';

// Checks every element as it is made, before anything renders it: preact-render-to-string
// escapes text and attribute values, but it would still write an inline handler given as a
// string, a javascript: link, raw HTML through dangerouslySetInnerHTML, or an inline script or
// style. Code that asks for one of those is a mistake and throws; a URL that came from data is
// only neutralised, so a page showing someone's bad link still renders.

/** Elements no page of ours makes: script and style belong in assets, the rest embed or retarget. */
const FORBIDDEN_ELEMENTS = new Set(['script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'base', 'animate', 'set']);

/** Attributes holding a URL the browser follows, loads or posts to (lowercased, `xlink:` dropped). */
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'poster', 'cite', 'data', 'ping', 'background', 'srcset', 'manifest', 'codebase', 'longdesc', 'icon']);

export class UnsafeMarkupError extends Error {
  override name = 'UnsafeMarkupError';
}

/** The one script a page may hold: one of our own assets, by its path, with the response's nonce, and nothing inside. */
const OWN_SCRIPT = /^\/assets\/[\w-]+\.[0-9a-f]{16}\.js$/;

function isOwnScript(props: Record<string, unknown>): boolean {
  const names = Object.keys(props).filter((name) => props[name] !== undefined);
  return typeof props.src === 'string' && OWN_SCRIPT.test(props.src) && names.every((name) => ['src', 'nonce', 'defer'].includes(name));
}

/** Each prop name as the browser reads the attribute (lowercased, `xlink:` dropped); the names a page uses are few. */
const attributes = new Map<string, string>();
function attributeOf(name: string): string {
  let attribute = attributes.get(name);
  if (attribute === undefined) {
    attribute = name.toLowerCase().replace(/^xlink:?/, '');
    // Names come from templates, and from data only through spreads: keep the map from growing without end.
    if (attributes.size < 10_000) attributes.set(name, attribute);
  }
  return attribute;
}

function check(vnode: VNode): void {
  if (typeof vnode.type !== 'string') return; // components and fragments: their elements are checked as they are made
  const element = vnode.type.toLowerCase();
  if (element === 'script' && isOwnScript(vnode.props as Record<string, unknown>)) return;
  if (FORBIDDEN_ELEMENTS.has(element)) throw new UnsafeMarkupError(`<${element}> is not allowed in a page: scripts and styles are served as assets.`);
  const props = vnode.props as Record<string, unknown>;
  for (const name in props) {
    if (name === 'children') continue;
    const value = props[name];
    const attribute = attributeOf(name);
    if (attribute === 'dangerouslysetinnerhtml') throw new UnsafeMarkupError('dangerouslySetInnerHTML is not allowed: every value is escaped.');
    if (attribute.startsWith('on')) throw new UnsafeMarkupError(`<${element} ${name}> is not allowed: pages carry no inline handlers (the CSP forbids them).`);
    if (attribute === 'style') throw new UnsafeMarkupError(`<${element} style> is not allowed: styles live in the stylesheet, so the CSP needs no 'unsafe-inline'.`);
    if (attribute === 'http-equiv' || attribute === 'httpequiv') throw new UnsafeMarkupError('<meta http-equiv> is not allowed: headers are set by the server.');
    if (URL_ATTRIBUTES.has(attribute) && value != null && typeof value !== 'boolean') props[name] = safeUrl(String(value));
  }
}

const previous = options.vnode;
options.vnode = (vnode) => {
  check(vnode);
  previous?.(vnode);
};

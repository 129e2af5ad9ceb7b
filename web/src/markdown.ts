// The one markdown renderer of the explorer (reading view, editor preview, hover previews): markdown-it with its
// GFM tables and strikethrough, plus small rules of our own for what Obsidian notes hold and no well-kept plugin
// covers together: [[wikilinks]] and ![[embeds]] (an inline rule), #tags, task lists and > [!note] callouts (core
// rules over the token stream). Every rendered string goes through DOMPurify and comes back as a DOM fragment:
// nothing reaches innerHTML, and the note's own HTML keeps no script, handler or style.

import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import type StateCore from "markdown-it/lib/rules_core/state_core.mjs";
import type StateInline from "markdown-it/lib/rules_inline/state_inline.mjs";
import type Token from "markdown-it/lib/token.mjs";

/** Where a `[[ref]]` leads: an item of the vault, or null when nothing has that name yet. */
export interface LinkTarget {
  id: string;
  title: string;
  kind: "Note" | "Document";
  path?: string;
  docType?: string;
}

export type Resolve = (ref: string) => LinkTarget | null;

interface Env {
  resolve: Resolve;
}

interface WikiRef {
  target: string;
  heading: string | null;
  alias: string | null;
  embed: boolean;
}

const IMAGE = /\.(png|jpe?g|gif|webp|svg|bmp|avif|ico)$/i;
const TAG = /^#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/u;
const CALLOUT = /^\[!([\w-]+)\]([+-]?)[ \t]*(.*)$/;
const TASK = /^\[([ xX])\][ \t]/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const FRONTMATTER = /^---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

export function isImagePath(path: string): boolean {
  return IMAGE.test(path);
}

/** The body without its YAML front matter (the server parses it; the reading view shows `frontmatter` instead). */
export function stripFrontmatter(body: string): string {
  return body.replace(FRONTMATTER, "");
}

/** `Target#Heading|Alias` (Obsidian's grammar; `\|` is the pipe escaped inside a table cell). */
export function parseWikiRef(inner: string, embed: boolean): WikiRef {
  const bar = inner.search(/\\?\|/);
  const ref = bar < 0 ? inner : inner.slice(0, bar);
  const alias = bar < 0 ? null : inner.slice(bar).replace(/^\\?\|/, "").trim() || null;
  const hash = ref.indexOf("#");
  const target = (hash < 0 ? ref : ref.slice(0, hash)).trim();
  const heading = hash < 0 ? null : ref.slice(hash + 1).replace(/^\^.*/, "").trim() || null;
  return { target, heading, alias, embed };
}

function wikilinkRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  let pos = state.pos;
  const embed = src.charCodeAt(pos) === 0x21; // !
  if (embed) pos++;
  if (src.charCodeAt(pos) !== 0x5b || src.charCodeAt(pos + 1) !== 0x5b) return false;
  const end = src.indexOf("]]", pos + 2);
  if (end < 0) return false;
  const inner = src.slice(pos + 2, end);
  if (!inner.trim() || inner.includes("\n") || inner.includes("[[")) return false;
  if (!silent) state.push("wikilink", "", 0).meta = parseWikiRef(inner, embed);
  state.pos = end + 2;
  return true;
}

function tagRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x23) return false; // #
  if (state.pos > 0 && !/\s/.test(state.src[state.pos - 1])) return false;
  const m = TAG.exec(state.src.slice(state.pos));
  if (!m) return false;
  if (!silent) state.push("tag", "", 0).content = m[1];
  state.pos += m[0].length;
  return true;
}

/** `- [ ] task` and `- [x] done`: a disabled checkbox in a list item marked as a task. */
function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i];
    if (inline.type !== "inline" || tokens[i - 1].type !== "paragraph_open" || tokens[i - 2].type !== "list_item_open") continue;
    const first = inline.children?.[0];
    const m = first?.type === "text" ? TASK.exec(first.content) : null;
    if (!first || !m) continue;
    first.content = first.content.slice(m[0].length);
    const box = new state.Token("task_box", "input", 0);
    box.meta = { checked: m[1] !== " " };
    inline.children!.unshift(box);
    tokens[i - 2].attrJoin("class", "task-list-item");
  }
}

/** `> [!type] Title` opens a callout: the quote gets the type, its first line becomes the title. */
function callouts(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 0; i + 2 < tokens.length; i++) {
    if (tokens[i].type !== "blockquote_open" || tokens[i + 1].type !== "paragraph_open") continue;
    const inline = tokens[i + 2];
    const firstLine = inline.content.split("\n", 1)[0];
    const m = CALLOUT.exec(firstLine);
    if (!m) continue;
    const type = m[1].toLowerCase();
    tokens[i].attrJoin("class", `callout callout-${type}`);
    tokens[i].attrSet("data-callout", type);
    if (m[2]) tokens[i].attrSet("data-fold", m[2] === "+" ? "open" : "closed");
    const title = new state.Token("callout_title", "div", 0);
    title.content = m[3].trim() || type[0].toUpperCase() + type.slice(1);
    tokens.splice(i + 1, 0, title);
    // Drop the first line (up to the first soft break) from the paragraph; an empty paragraph is not drawn.
    const children = inline.children ?? [];
    const brk = children.findIndex((t) => t.type === "softbreak" || t.type === "hardbreak");
    inline.children = brk < 0 ? [] : children.slice(brk + 1);
    if (!inline.children.length) tokens[i + 2].hidden = tokens[i + 4].hidden = true;
  }
}

/** Headings get ids (`h-` + a slug of their text) so `[[Note#Heading]]` can scroll to them. */
function headingIds(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (tokens[i].type === "heading_open") tokens[i].attrSet("id", headingId(tokens[i + 1].content));
  }
}

export function headingId(text: string): string {
  return `h-${text.trim().toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "")}`;
}

function escapeAttr(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function wikilinkHtml(ref: WikiRef, env: Env): string {
  const e = escapeAttr;
  const label = ref.alias ?? (ref.target || "") + (ref.heading ? (ref.target ? " › " : "") + ref.heading : "");
  const heading = ref.heading ? ` data-heading="${e(ref.heading)}"` : "";
  if (!ref.target) return `<a class="wikilink" href="#${e(headingId(ref.heading ?? ""))}" data-self="true"${heading}>${e(label)}</a>`;
  const hit = env.resolve(ref.target);
  if (ref.embed) {
    const image = isImagePath(ref.target) || (hit?.path !== undefined && isImagePath(hit.path));
    if (!hit) return `<span class="embed unresolved" data-target="${e(ref.target)}" title="Nothing has this name yet">${e(label)}</span>`;
    return `<span class="embed${image ? " embed-image" : ""}" data-embed-id="${e(hit.id)}" data-target="${e(ref.target)}"${heading}>` +
      `<a class="wikilink" href="#item=${encodeURIComponent(hit.id)}" data-id="${e(hit.id)}">${e(ref.alias ?? hit.title)}</a></span>`;
  }
  if (!hit) {
    return `<a class="wikilink unresolved" href="#" data-target="${e(ref.target)}" title="Not written yet: click to create “${e(ref.target)}”">${e(label)}</a>`;
  }
  return `<a class="wikilink" href="#item=${encodeURIComponent(hit.id)}" data-id="${e(hit.id)}" data-target="${e(ref.target)}"${heading}>${e(label)}</a>`;
}

function build(): MarkdownIt {
  const md = new MarkdownIt({ html: true, linkify: true, typographer: false });
  md.inline.ruler.before("link", "wikilink", wikilinkRule);
  md.inline.ruler.after("wikilink", "tag", tagRule);
  md.core.ruler.push("task_lists", taskLists);
  md.core.ruler.push("callouts", callouts);
  md.core.ruler.push("heading_ids", headingIds);
  const rules = md.renderer.rules;
  rules.wikilink = (tokens, idx, _o, env: Env) => wikilinkHtml(tokens[idx].meta as WikiRef, env);
  rules.tag = (tokens, idx) => `<a class="tag" href="#" data-tag="${escapeAttr(tokens[idx].content)}">#${escapeAttr(tokens[idx].content)}</a>`;
  rules.task_box = (tokens, idx) => `<input type="checkbox" disabled${(tokens[idx].meta as { checked: boolean }).checked ? " checked" : ""} aria-label="task"> `;
  rules.callout_title = (tokens, idx) => `<div class="callout-title">${escapeAttr(tokens[idx].content)}</div>`;
  // A relative markdown link is a link into the vault ([x](Other%20note.md)); one with a scheme leaves the page.
  const linkOpen = rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  rules.link_open = (tokens, idx, options, env: Env, self) => {
    const token = tokens[idx];
    const href = token.attrGet("href") ?? "";
    if (SCHEME.test(href)) {
      token.attrSet("target", "_blank");
      token.attrSet("rel", "noopener noreferrer");
    } else if (href && !href.startsWith("#")) {
      const ref = decodeURIComponent(href.split("#")[0]).replace(/\.md$/i, "");
      const hit = env.resolve(ref);
      token.attrJoin("class", hit ? "wikilink" : "wikilink unresolved");
      token.attrSet("data-target", ref);
      if (hit) token.attrSet("data-id", hit.id);
      token.attrSet("href", hit ? `#item=${encodeURIComponent(hit.id)}` : "#");
    }
    return linkOpen(tokens, idx, options, env, self);
  };
  // Images come only from the vault (the page's CSP allows no other origin): a local path is embedded like
  // ![[image.png]], a remote one is shown as a link to it.
  rules.image = (tokens: Token[], idx: number) => {
    const token = tokens[idx];
    const src = token.attrGet("src") ?? "";
    const alt = token.content;
    if (SCHEME.test(src) && !src.startsWith("data:")) {
      return `<a href="${escapeAttr(src)}" target="_blank" rel="noopener noreferrer">${escapeAttr(alt || src)}</a>`;
    }
    return `<img data-embed-target="${escapeAttr(decodeURIComponent(src))}" alt="${escapeAttr(alt)}">`;
  };
  return md;
}

const md = build();

// The note's own <img> tags get the same rule as markdown images: a local source becomes an embed resolved by
// name (so `<img src=x>` fetches nothing), a remote one is dropped (it would break the CSP anyway).
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "IMG") {
    const src = node.getAttribute("src");
    if (src !== null) {
      node.removeAttribute("src");
      if (!SCHEME.test(src) && !src.startsWith("//")) node.setAttribute("data-embed-target", src);
      else if (src.startsWith("data:image/")) node.setAttribute("src", src); // an <img> runs no script, SVG or not
    }
  }
  if (node.tagName === "A" && node.getAttribute("target") === "_blank") node.setAttribute("rel", "noopener noreferrer");
});

const PURIFY = {
  FORBID_TAGS: ["style", "form", "button", "textarea", "select", "iframe", "object", "embed", "link", "meta", "base"],
  FORBID_ATTR: ["style", "srcset", "formaction"],
  ADD_ATTR: ["target"],
};

/** Sanitized HTML as nodes, ready to append. */
export function sanitize(html: string): DocumentFragment {
  return DOMPurify.sanitize(html, { ...PURIFY, RETURN_DOM_FRAGMENT: true });
}

const unresolved: Resolve = () => null;

/** A note (or a markdown document) rendered, front matter left out. */
export function renderMarkdown(source: string, resolve: Resolve = unresolved): DocumentFragment {
  return sanitize(md.render(stripFrontmatter(source), { resolve } satisfies Env));
}

/** One line of markdown (a property value, a title) rendered inline. */
export function renderInline(source: string, resolve: Resolve = unresolved): DocumentFragment {
  return sanitize(md.renderInline(source, { resolve } satisfies Env));
}

/** The part of `source` under the heading `heading` (up to the next heading of its level or above), rendered:
 * what `![[Note#Heading]]` shows. Null when the note has no such heading. */
export function renderSection(source: string, heading: string, resolve: Resolve = unresolved): DocumentFragment | null {
  const env: Env = { resolve };
  const tokens = md.parse(stripFrontmatter(source), env);
  const want = headingId(heading);
  const start = tokens.findIndex((t, i) => t.type === "heading_open" && headingId(tokens[i + 1]?.content ?? "") === want);
  if (start < 0) return null;
  const level = Number(tokens[start].tag.slice(1));
  let end = start + 3;
  while (end < tokens.length && !(tokens[end].type === "heading_open" && Number(tokens[end].tag.slice(1)) <= level)) end++;
  return sanitize(md.renderer.render(tokens.slice(start, end), md.options, env));
}

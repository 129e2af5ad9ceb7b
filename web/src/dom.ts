// A tiny DOM builder: enough to keep each pane's markup next to its behaviour, without a framework.

type Child = Node | string | number | null | undefined | false;
type Handler = (event: Event) => void;

export interface Props {
  class?: string;
  text?: string;
  title?: string;
  hidden?: boolean;
  attrs?: Record<string, string | number | boolean | null | undefined>;
  data?: Record<string, string>;
  on?: Record<string, Handler>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    if (props.class) el.className = props.class;
    if (props.text !== undefined) el.textContent = props.text;
    if (props.title) el.title = props.title;
    if (props.hidden) el.hidden = true;
    for (const [name, value] of Object.entries(props.attrs ?? {})) {
      if (value === false || value === null || value === undefined) continue;
      el.setAttribute(name, value === true ? "" : String(value));
    }
    for (const [name, value] of Object.entries(props.data ?? {})) el.dataset[name] = value;
    for (const [name, handler] of Object.entries(props.on ?? {})) el.addEventListener(name, handler);
  }
  append(el, children);
  return el;
}

function append(el: Element, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** Replace an element's children. */
export function fill(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, children);
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from index.html`);
  return el as T;
}

/** Text with `**marked**` stretches (the server's snippet marks) as <mark> elements; nothing is parsed as HTML. */
export function marked(text: string): DocumentFragment {
  const out = document.createDocumentFragment();
  text.split("**").forEach((part, i) => {
    if (!part) return;
    out.append(i % 2 === 1 ? h("mark", { text: part }) : document.createTextNode(part));
  });
  return out;
}

export function relativeTime(iso: string | null | undefined): string {
  if (!iso) return "";
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return "";
  const seconds = Math.round((Date.now() - then) / 1000);
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 30) return `${days} d ago`;
  return new Date(iso).toLocaleDateString();
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

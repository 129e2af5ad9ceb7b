// The tenant switcher of development mode: which tenant this browser reads and writes (X-Vaultgraph-Tenant on every
// request and in the socket's connection_init), the server's own development tenant by default. Hidden when an API
// key is stored (the key names its tenant) and on a server without `viewer`. A switch reloads the page, so no pane
// keeps another tenant's items.

import { type Api, readStored as read, storedKey, storedTenant, storeTenant, writeStored as write } from "./api";
import type { Capabilities } from "./capabilities";
import { h } from "./dom";
import { toastError } from "./toast";

const KNOWN_STORAGE = "vaultgraph.devTenants";
const DEFAULT_STORAGE = "vaultgraph.devTenantDefault";
const MAX_KNOWN = 10;
/** The server's rule for tenant ids (vaultgraph/workspace/layout.py check_key): they name folders. */
const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

function known(): string[] {
  try {
    const list: unknown = JSON.parse(read(KNOWN_STORAGE) ?? "[]");
    return Array.isArray(list) ? list.filter((t): t is string => typeof t === "string" && TENANT_ID.test(t)) : [];
  } catch {
    return [];
  }
}

export class TenantSwitcher {
  constructor(private readonly api: Api, private readonly caps: Capabilities, private readonly host: HTMLElement) {}

  /** Read who the server takes this browser for and show the switcher (development mode only). */
  async mount(): Promise<void> {
    if (storedKey() || !this.caps.field("Query", "viewer")) return;
    let tenant: string;
    try {
      tenant = (await this.api.request<{ viewer: { tenant: string } }>("query Viewer { viewer { tenant } }")).viewer.tenant;
    } catch {
      return; // the boot already said what is wrong with the API
    }
    if (!storedTenant()) write(DEFAULT_STORAGE, tenant);
    const fallback = read(DEFAULT_STORAGE);
    const names = [...new Set([tenant, ...(fallback ? [fallback] : []), ...known()])];
    const input = h("input", { attrs: { id: "tenant-input", list: "tenant-names", placeholder: "Tenant id", "aria-label": "Tenant id",
      autocomplete: "off", value: tenant, maxlength: 128 } });
    const form = h("form", { class: "tenant-form", attrs: { id: "tenant-form" } },
      h("datalist", { attrs: { id: "tenant-names" } }, names.map((name) => h("option", { attrs: { value: name } }))),
      input, h("button", { class: "btn btn-small btn-primary", text: "Switch", attrs: { type: "submit", id: "tenant-submit" } }),
      fallback && fallback !== tenant ? h("button", { class: "btn btn-small", text: `Back to ${fallback}`,
        attrs: { type: "button", id: "tenant-default" }, on: { click: () => this.switchTo(fallback) } }) : null);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.switchTo(input.value.trim());
    });
    this.host.append(h("details", { class: "tenant-switch", attrs: { id: "tenant-switch" } },
      h("summary", { title: "Development mode: the tenant this browser reads and writes" },
        "Tenant ", h("span", { class: "mono", text: tenant, attrs: { id: "tenant-current" } })),
      h("div", { class: "tenant-panel" },
        h("p", { class: "hint", text: "Development mode: every request names this tenant." }), form)));
  }

  private switchTo(name: string): void {
    if (!TENANT_ID.test(name)) {
      toastError(new Error("A tenant id is 1-128 letters, digits, '_', '-' or '.', starting with a letter or digit"), "Switching the tenant");
      return;
    }
    const fallback = read(DEFAULT_STORAGE);
    storeTenant(name === fallback ? null : name);
    write(KNOWN_STORAGE, JSON.stringify([name, ...known().filter((t) => t !== name)].slice(0, MAX_KNOWN)));
    // The open item is the old tenant's: start the page afresh, without it.
    const url = new URL(location.href);
    url.hash = "";
    history.replaceState(null, "", url);
    location.reload();
  }
}

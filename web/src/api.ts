// The explorer's only way to the server: the public GraphQL API over HTTP (queries, mutations, multipart uploads)
// and graphql-ws (the graphql-transport-ws protocol) for subscriptions, exactly as any other client would use it.

import { createClient, type Client } from "graphql-ws";

export interface GraphQLErrorShape {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; [key: string]: unknown };
}

/** An error answered by the API (with its `extensions.code`) or a failure to reach it (code NETWORK). */
export class ApiError extends Error {
  readonly code: string;
  readonly errors: GraphQLErrorShape[];

  constructor(message: string, code: string, errors: GraphQLErrorShape[] = []) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.errors = errors;
  }

  static from(errors: GraphQLErrorShape[]): ApiError {
    const first = errors[0];
    const code = first?.extensions?.code ?? "ERROR";
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
    return new ApiError(`${first?.message ?? "The API answered with an error"}${more}`, code, errors);
  }
}

export type Variables = Record<string, unknown>;

export interface SubscriptionHandlers<T> {
  next: (data: T) => void;
  error?: (error: ApiError) => void;
  complete?: () => void;
}

const KEY_STORAGE = "vaultgraph.apiKey";
const TENANT_STORAGE = "vaultgraph.devTenant";

/** A value this browser keeps (localStorage), or null when there is none or storage is disabled. */
export function readStored(name: string): string | null {
  try {
    return window.localStorage.getItem(name);
  } catch {
    return null;
  }
}

/** Keep a value (null: forget it); with storage disabled it lasts for this page only, or not at all. */
export function writeStored(name: string, value: string | null): void {
  try {
    if (value) window.localStorage.setItem(name, value);
    else window.localStorage.removeItem(name);
  } catch {
    // storage disabled
  }
}

/** The API key this browser presents (servers outside development mode need one); kept in localStorage. */
export function storedKey(): string | null {
  return readStored(KEY_STORAGE);
}

export function storeKey(key: string | null): void {
  writeStored(KEY_STORAGE, key);
}

/** The tenant this browser asks a development-mode server for (X-Vaultgraph-Tenant), or null for the server's own
 * development tenant; kept by the tenant switcher. Ignored when an API key is stored: the key names its tenant. */
export function storedTenant(): string | null {
  return storedKey() ? null : readStored(TENANT_STORAGE);
}

export function storeTenant(tenant: string | null): void {
  writeStored(TENANT_STORAGE, tenant);
}

export class Api {
  private ws: Client | null = null;
  private readonly key: string | null = storedKey();
  private readonly tenant: string | null = storedTenant();
  private readonly httpUrl: string;
  private readonly wsUrl: string;
  /** Connection state of the subscription socket, for the status dot in the top bar. */
  onSocketState: (state: "connecting" | "open" | "closed") => void = () => {};
  /** Answers that came with `extensions.warnings` (e.g. hybrid search fell back to keywords). */
  onWarnings: (warnings: { code?: string; message: string }[]) => void = () => {};

  constructor(base: URL = new URL("/graphql", window.location.href)) {
    this.httpUrl = base.href;
    const ws = new URL(base.href);
    ws.protocol = ws.protocol === "https:" ? "wss:" : "ws:";
    this.wsUrl = ws.href;
  }

  /** Run a query or mutation; any GraphQL error becomes an ApiError carrying the first error's code. */
  async request<T>(query: string, variables: Variables = {}): Promise<T> {
    return this.send<T>(
      JSON.stringify({ query, variables }),
      { "content-type": "application/json", accept: "application/graphql-response+json, application/json" },
    );
  }

  /**
   * A mutation with files, by the GraphQL multipart request spec (`operations`, `map`, then the files). The server
   * refuses a multipart POST without `Apollo-Require-Preflight`: a cross-site form can never send that header.
   */
  async upload<T>(query: string, variables: Variables, files: { variable: string; file: File }[]): Promise<T> {
    const form = new FormData();
    const map: Record<string, string[]> = {};
    files.forEach((f, i) => (map[String(i)] = [`variables.${f.variable}`]));
    form.append("operations", JSON.stringify({ query, variables }));
    form.append("map", JSON.stringify(map));
    files.forEach((f, i) => form.append(String(i), f.file, f.file.name));
    return this.send<T>(form, { "apollo-require-preflight": "true", accept: "application/graphql-response+json, application/json" });
  }

  /** A document's bytes as stored (GET /files/{id}, with this browser's key): an attachment to show or download. */
  async file(id: string): Promise<Blob> {
    let response: Response;
    try {
      response = await fetch(new URL(`/files/${encodeURIComponent(id)}`, this.httpUrl), {
        headers: this.identity(),
      });
    } catch (err) {
      throw new ApiError(`Cannot reach the vaultgraph server (${(err as Error).message}). Is it running?`, "NETWORK");
    }
    if (!response.ok) {
      const body = await response.json().catch(() => null) as { errors?: GraphQLErrorShape[] } | null;
      if (body?.errors?.length) throw ApiError.from(body.errors);
      throw new ApiError(`The server answered ${response.status} ${response.statusText}`, "HTTP");
    }
    return response.blob();
  }

  /** Who this browser is to the server: its API key, else (development mode) the tenant it switched to, if any. */
  private identity(): Record<string, string> {
    if (this.key) return { authorization: `Bearer ${this.key}` };
    return this.tenant ? { "x-vaultgraph-tenant": this.tenant } : {};
  }

  private async send<T>(body: BodyInit, headers: Record<string, string>): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.httpUrl, { method: "POST", body, headers: { ...headers, ...this.identity() } });
    } catch (err) {
      throw new ApiError(`Cannot reach the vaultgraph server (${(err as Error).message}). Is it running?`, "NETWORK");
    }
    let payload: {
      data?: T | null; errors?: GraphQLErrorShape[]; extensions?: { warnings?: { code?: string; message: string }[] };
    } | null = null;
    try {
      payload = await response.json();
    } catch {
      throw new ApiError(`The server answered ${response.status} ${response.statusText} without a GraphQL body`, "HTTP");
    }
    if (payload?.extensions?.warnings?.length) this.onWarnings(payload.extensions.warnings);
    if (payload?.errors?.length) throw ApiError.from(payload.errors);
    if (!response.ok || !payload || payload.data === undefined || payload.data === null) {
      throw new ApiError(`The server answered ${response.status} ${response.statusText}`, "HTTP");
    }
    return payload.data;
  }

  /** Subscribe over graphql-ws; the socket is opened on first use and retried when it drops. Returns unsubscribe. */
  subscribe<T>(query: string, variables: Variables, handlers: SubscriptionHandlers<T>): () => void {
    const client = this.socket();
    return client.subscribe<T>(
      { query, variables },
      {
        next: (message) => {
          if (message.errors?.length) handlers.error?.(ApiError.from(message.errors as GraphQLErrorShape[]));
          else if (message.data) handlers.next(message.data as T);
        },
        error: (err) => handlers.error?.(toApiError(err)),
        complete: () => handlers.complete?.(),
      },
    );
  }

  private socket(): Client {
    if (!this.ws) {
      this.onSocketState("connecting");
      this.ws = createClient({
        url: this.wsUrl,
        lazy: true,
        connectionParams: () => this.identity(),
        retryAttempts: Number.POSITIVE_INFINITY,
        shouldRetry: () => true,
        on: {
          connecting: () => this.onSocketState("connecting"),
          connected: () => this.onSocketState("open"),
          closed: () => this.onSocketState("closed"),
        },
      });
    }
    return this.ws;
  }
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (Array.isArray(err)) return ApiError.from(err as GraphQLErrorShape[]);
  if (err instanceof Error) return new ApiError(err.message, "NETWORK");
  if (typeof CloseEvent !== "undefined" && err instanceof CloseEvent) {
    return new ApiError(`The live connection closed (${err.code}${err.reason ? `: ${err.reason}` : ""})`, "NETWORK");
  }
  return new ApiError("The live connection failed", "NETWORK");
}

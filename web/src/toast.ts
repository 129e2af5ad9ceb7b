// Messages in the corner: every API error is shown with its code, never swallowed.

import { ApiError } from "./api";
import { byId, h } from "./dom";

type Kind = "info" | "success" | "warning" | "error";

function show(kind: Kind, message: string, code?: string): HTMLElement {
  const host = byId("toasts");
  const close = h("button", { class: "toast-close", text: "×", attrs: { "aria-label": "Dismiss" } });
  const toast = h(
    "div",
    { class: `toast toast-${kind}`, attrs: { role: kind === "error" ? "alert" : "status" } },
    code ? h("span", { class: "toast-code", text: code }) : null,
    h("span", { class: "toast-message", text: message }),
    close,
  );
  const remove = () => toast.remove();
  close.addEventListener("click", remove);
  host.append(toast);
  while (host.children.length > 5) host.firstElementChild?.remove();
  window.setTimeout(remove, kind === "error" ? 10000 : 4000);
  return toast;
}

export function toastInfo(message: string): void {
  show("info", message);
}

export function toastWarning(message: string, code?: string): void {
  show("warning", message, code);
}

export function toastSuccess(message: string): void {
  show("success", message);
}

/** Show an error; `context` says what was being done ("Saving the note"). */
export function toastError(err: unknown, context?: string): void {
  const prefix = context ? `${context}: ` : "";
  if (err instanceof ApiError) show("error", prefix + err.message, err.code);
  else if (err instanceof Error) show("error", prefix + err.message);
  else show("error", prefix + String(err));
  if (!(err instanceof ApiError)) console.warn("explorer:", err);
}

/** Run an async action; report its failure as a toast and resolve to null. */
export async function attempt<T>(context: string, action: () => Promise<T>): Promise<T | null> {
  try {
    return await action();
  } catch (err) {
    toastError(err, context);
    return null;
  }
}

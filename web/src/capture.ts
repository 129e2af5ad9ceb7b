// The capture box: one line appended, timestamped, to today's daily note (captureNote, through the save pipeline,
// so links and tags in the text are wired at once).

import type { Api } from "./api";
import { byId } from "./dom";
import { CAPTURE_NOTE } from "./queries";
import type { Item, Store } from "./store";
import { toastError, toastSuccess } from "./toast";

export type CapturedNote = Item & { body: string; bodySha256: string };

export class CaptureBox {
  private readonly form = byId<HTMLFormElement>("capture-form");
  private readonly input = byId<HTMLInputElement>("capture-input");
  private readonly button = byId<HTMLButtonElement>("capture-submit");

  constructor(private readonly api: Api, private readonly store: Store, private readonly captured: (note: CapturedNote) => void) {
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.capture();
    });
  }

  async capture(): Promise<void> {
    const text = this.input.value.trim();
    if (!text) return;
    this.button.disabled = true;
    try {
      const data = await this.api.request<{ captureNote: CapturedNote }>(CAPTURE_NOTE, { text });
      this.input.value = "";
      this.store.upsert([data.captureNote]);
      this.captured(data.captureNote);
      toastSuccess(`Captured to ${data.captureNote.title}`);
    } catch (err) {
      toastError(err, "Capturing");
    } finally {
      this.button.disabled = false;
    }
  }
}

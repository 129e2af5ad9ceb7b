// Node labels that never overlap: after each of sigma's draws, labels are placed greedily by importance (the
// selected node, then what is highlighted, then by degree: hubs first), each one only where its box overlaps no
// label already placed, and drawn on a 2D canvas layer of sigma's. sigma's own label grid (labelDensity) picks a
// few labels per cell but lets labels of neighbouring cells overlap; this does not.

import type { Renderer } from "./graph-style";

/** A drawn label, in viewport pixels (what the browser tests read). */
export interface LabelBox {
  node: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

const FONT_SIZE = 12;
const FONT = `${FONT_SIZE}px system-ui, -apple-system, "Segoe UI", sans-serif`;
const PAD = 2; // kept free around each label's text
const MIN_RADIUS = 3; // nodes drawn smaller than this (pixels) get no label unless they are highlighted
const MAX_LABELS = 400;

export class LabelLayer {
  /** The labels of the last draw. */
  drawn: LabelBox[] = [];
  /** Nodes always labelled when drawn (selected, hovered, lit), in this order of priority. */
  forced: string[] = [];
  /** When it says so, no labels while the camera moves (placing them costs JavaScript on every draw). */
  hideOnMove: () => boolean = () => false;
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly widths = new Map<string, number>();

  constructor(private readonly sigma: Renderer, private readonly byImportance: () => string[]) {
    this.canvas = sigma.createCanvas("vg-labels", { style: { pointerEvents: "none" } });
    const ctx = this.canvas.getContext("2d");
    if (!ctx) throw new Error("no 2D canvas for the labels");
    this.ctx = ctx;
    sigma.on("afterRender", () => this.draw());
  }

  private textWidth(text: string): number {
    let w = this.widths.get(text);
    if (w === undefined) {
      this.ctx.font = FONT;
      w = this.ctx.measureText(text).width;
      this.widths.set(text, w);
    }
    return w;
  }

  draw(): void {
    const s = this.sigma;
    const { width, height } = s.getDimensions();
    const dpr = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(width * dpr) || this.canvas.height !== Math.round(height * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
    }
    const ctx = this.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    this.drawn = [];
    const mouse = s.getMouseCaptor();
    const moving = s.getCamera().isAnimating() || mouse.isMoving || !!mouse.draggedEvents || !!mouse.currentWheelDirection;
    const hide = moving && this.hideOnMove();
    if (hide && !this.forced.length) return;

    // Placed boxes, binned in a grid of label-height cells for the overlap test.
    const cell = 40;
    const grid = new Map<number, LabelBox[]>();
    const keyOf = (cx: number, cy: number): number => cx * 100003 + cy;
    const fits = (b: LabelBox): boolean => {
      for (let cx = Math.floor(b.x / cell); cx <= Math.floor((b.x + b.width) / cell); cx++) {
        for (let cy = Math.floor(b.y / cell); cy <= Math.floor((b.y + b.height) / cell); cy++) {
          for (const o of grid.get(keyOf(cx, cy)) ?? []) {
            if (b.x < o.x + o.width && o.x < b.x + b.width && b.y < o.y + o.height && o.y < b.y + b.height) return false;
          }
        }
      }
      return true;
    };
    const place = (b: LabelBox): void => {
      for (let cx = Math.floor(b.x / cell); cx <= Math.floor((b.x + b.width) / cell); cx++) {
        for (let cy = Math.floor(b.y / cell); cy <= Math.floor((b.y + b.height) / cell); cy++) {
          const k = keyOf(cx, cy);
          const list = grid.get(k);
          if (list) list.push(b);
          else grid.set(k, [b]);
        }
      }
      this.drawn.push(b);
    };

    const forced = new Set(this.forced);
    const order = forced.size ? [...this.forced, ...this.byImportance().filter((n) => !forced.has(n))] : this.byImportance();
    ctx.font = FONT;
    ctx.textBaseline = "middle";
    for (const node of order) {
      if (this.drawn.length >= MAX_LABELS) break;
      if (hide && !forced.has(node)) continue;
      const data = s.getNodeDisplayData(node);
      if (!data || !data.label || data.visibility === "hidden" || data.labelVisibility === "hidden") continue;
      const r = s.scaleSize(data.size);
      if (r < MIN_RADIUS && !forced.has(node) && data.labelVisibility !== "visible") continue;
      const p = s.framedGraphToViewport(data);
      const w = this.textWidth(data.label);
      const box = { node, x: p.x + r + 3 - PAD, y: p.y - FONT_SIZE / 2 - PAD, width: w + 2 * PAD, height: FONT_SIZE + 2 * PAD };
      if (box.x > width || box.x + box.width < 0 || box.y > height || box.y + box.height < 0) continue;
      if (!fits(box)) continue;
      place(box);
      const strong = forced.has(node);
      ctx.fillStyle = strong ? "rgba(255,255,255,0.92)" : "rgba(255,255,255,0.7)";
      ctx.fillRect(box.x, box.y, box.width, box.height);
      ctx.fillStyle = strong ? "#11131a" : "#2b2f3a";
      ctx.fillText(data.label, box.x + PAD, p.y);
    }
  }
}

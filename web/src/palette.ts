// Colours and line styles shared by the list, the legend and the graph, so a type looks the same everywhere.

const TYPE_COLORS: Record<string, string> = {
  note: "#7c5cff",
  daily: "#b28cff",
  markdown: "#2f9e77",
  text: "#4c8dd6",
  json: "#e0922f",
  yaml: "#d6694c",
  csv: "#c2a83e",
  tsv: "#c2a83e",
  html: "#d65c8f",
};

const EXTRA = ["#3fb4c6", "#8a9a5b", "#b5654a", "#6d7fcc", "#9c6b98", "#5a9e5a"];

export function typeColor(key: string): string {
  if (TYPE_COLORS[key]) return TYPE_COLORS[key];
  let hash = 0;
  for (const ch of key) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return EXTRA[hash % EXTRA.length];
}

export function typeLabel(key: string): string {
  return key === "note" ? "Notes" : key === "daily" ? "Daily notes" : key.toUpperCase() === key ? key : key[0].toUpperCase() + key.slice(1);
}

export interface EdgeStyle {
  color: string;
  size: number;
  /** 0 = a solid line; otherwise the gap between dashes, in pixels. */
  gap: number;
  arrow: boolean;
  label: string;
}

const EDGE_STYLES: Record<string, EdgeStyle> = {
  WIKILINK: { color: "#8a93a7", size: 1.5, gap: 0, arrow: true, label: "wikilink" },
  REFERENCES: { color: "#4c8dd6", size: 1.6, gap: 0, arrow: true, label: "references" },
  DEPENDS_ON: { color: "#e0922f", size: 2.2, gap: 0, arrow: true, label: "depends on" },
  EXTENDS: { color: "#2f9e77", size: 2, gap: 0, arrow: true, label: "extends" },
  RELATED: { color: "#9c7be0", size: 1.6, gap: 5, arrow: false, label: "related" },
  SUPERSEDES: { color: "#8a6d3b", size: 2, gap: 0, arrow: true, label: "supersedes" },
  CONTRADICTS: { color: "#d64c5a", size: 2, gap: 4, arrow: false, label: "contradicts" },
  MENTIONS: { color: "#b0b7c3", size: 1, gap: 3, arrow: true, label: "mentions" },
  DERIVED_FROM: { color: "#3fb4c6", size: 1.6, gap: 0, arrow: true, label: "derived from" },
  CHILD_OF: { color: "#6d7fcc", size: 1.6, gap: 0, arrow: true, label: "child of" },
};

export function edgeStyle(type: string): EdgeStyle {
  return EDGE_STYLES[type] ?? { color: "#a0a7b4", size: 1.3, gap: 2, arrow: true, label: type.toLowerCase().replace(/_/g, " ") };
}

export const STAGES = ["QUEUED", "PREPARE", "SUMMARIZE", "EMBED", "CLASSIFY", "WIKILINKS", "DONE", "FAILED", "SKIPPED"];

export function stageClass(stage: string): string {
  if (stage === "DONE") return "stage stage-done";
  if (stage === "FAILED") return "stage stage-failed";
  if (stage === "SKIPPED") return "stage stage-skipped";
  if (stage === "QUEUED") return "stage stage-queued";
  return "stage stage-running";
}

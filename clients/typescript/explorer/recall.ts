// Recall explained: the delivered items and the ranking before the budget, each score a stacked bar of
// its components' shares (RecallWeights: the weighted sum, times the time and period boosts), the
// profile's gates drawn as lines; a click opens the memory and its provenance.
import { request } from "./api.js";
import { colour, el, fields, shorten, value, when } from "./dom.js";
import {
  ExplorerMemoryDocument,
  ExplorerRecallDocument,
  type ComponentsFragment,
  type ExplorerRecallQuery,
  type Priority,
  type RecallProfile,
} from "../src/operations.js";

type Result = ExplorerRecallQuery["recall"];
type Weights = Result["weights"];
type Row = { id: string; content: string; tier: string; score: number; components: ComponentsFragment };

export const COMPONENTS = ["vector", "keyword", "recency", "relation", "time", "period", "carried"] as const;

// Each component's share of a score: the four weighted terms, then what the time and period boosts added,
// then what a strong match beside it carried past that (a statement's score is the larger of the two).
export function shares(c: ComponentsFragment, w: Weights, score: number): Record<string, number> {
  const terms = {
    vector: w.vector * (c.vector ?? 0),
    keyword: w.keyword * c.keyword,
    recency: w.recency * c.recency,
    relation: w.relation * c.relation,
  };
  const weighted = terms.vector + terms.keyword + terms.recency + terms.relation;
  const timed = weighted * w.timeBoost * c.time;
  const period = (weighted + timed) * w.periodBoost * c.period;
  const carried = Math.max(0, c.carried - (weighted + timed + period));
  const parts: Record<string, number> = { ...terms, time: timed, period, carried };
  // They add up to the score; scaled to it so that rounding never shows as a gap.
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  for (const name of Object.keys(parts)) parts[name] = total > 0 ? (parts[name] * score) / total : 0;
  return parts;
}

// The score lines the gates draw: full and summary, and the share of the first item's score an item must
// reach to be delivered (none when the profile delivers the whole budget).
function gateLines(gates: NonNullable<Result["gates"]>, ranking: Row[]): [string, number][] {
  const top = ranking.length ? ranking[0].score : 0;
  const lines: [string, number][] = [["full", gates.fullAbove], ["summary", gates.summaryAbove]];
  return gates.ofTop > 0 && top > 0 ? [...lines, ["top", gates.ofTop * top]] : lines;
}

function bar(row: Row, result: Result, scale: number): HTMLElement {
  const track = el("div", { class: "track" });
  const parts = shares(row.components, result.weights, row.score);
  for (const name of COMPONENTS) {
    if (parts[name] <= 0) continue;
    const raw = row.components[name];
    track.append(el("span", {
      class: `share share-${name}`,
      "data-component": name,
      style: `width: ${((parts[name] / scale) * 100).toFixed(3)}%`,
      title: `${name} ${raw === null ? "—" : raw.toFixed(3)} → ${parts[name].toFixed(3)} of the score`,
    }));
  }
  if (result.gates) {
    for (const [name, at] of gateLines(result.gates, result.ranking)) {
      track.append(el("i", { class: `gate gate-${name}`, style: `left: ${((at / scale) * 100).toFixed(3)}%` }));
    }
  }
  return track;
}

function rows(title: string, list: Row[], result: Result, scale: number, delivered: Map<string, string>,
              open: (id: string) => void): HTMLElement {
  const section = el("section", { class: "ranked" }, el("h3", {}, `${title} (${list.length})`));
  const ol = el("ol");
  for (const row of list) {
    const mode = delivered.get(row.id);
    const item = el("li", { class: mode ? "row delivered" : "row", "data-id": row.id },
      el("button", { type: "button", class: "content", title: row.content }, shorten(row.content, 90)),
      el("span", { class: "meta" }, `${row.tier}${mode ? " · " + mode : ""}`),
      el("span", { class: "score" }, row.score.toFixed(3)),
      bar(row, result, scale));
    item.querySelector("button")!.addEventListener("click", () => open(row.id));
    ol.append(item);
  }
  if (list.length === 0) ol.append(el("li", { class: "empty" }, "nothing above the floor"));
  section.append(ol);
  return section;
}

function legend(result: Result): HTMLElement {
  const w = result.weights;
  const weights: Record<string, string> = {
    vector: `×${w.vector}`, keyword: `×${w.keyword}`, recency: `×${w.recency}`, relation: `×${w.relation}`,
    time: `boost ${w.timeBoost}`, period: `boost ${w.periodBoost}`, carried: `×${w.carry} of a match beside it`,
  };
  const shown = el("p", { class: "legend" });
  for (const name of COMPONENTS) {
    shown.append(el("span", { class: `key share-${name}` }), `${name} ${weights[name]}  `);
  }
  if (result.gates) {
    shown.append(el("span", { class: "key gate-full" }), `full above ${result.gates.fullAbove}  `,
      el("span", { class: "key gate-summary" }), `summary above ${result.gates.summaryAbove}`);
    if (result.gates.ofTop > 0) {
      shown.append("  ", el("span", { class: "key gate-top" }), `delivered down to ${result.gates.ofTop} of the first score`);
    }
  } else {
    shown.append("no gates: this profile keeps each tier's top k");
  }
  return shown;
}

async function openMemory(id: string, panel: HTMLElement): Promise<void> {
  panel.replaceChildren(el("p", {}, "Loading…"));
  const { memory } = await request(ExplorerMemoryDocument, { id });
  if (!memory) return;
  const chips = el("p", { class: "chips" });
  for (const entity of memory.entities) {
    const c = colour(entity.type);
    chips.append(el("span", { class: "chip", style: `background: ${c.color}; border-color: ${c.border}` },
      `${entity.type}: ${entity.name}`));
  }
  const attributes = memory.attributes && Object.keys(memory.attributes as object).length
    ? el("pre", {}, JSON.stringify(memory.attributes, null, 2)) : null;
  panel.replaceChildren(
    el("h3", {}, "Memory"),
    el("blockquote", {}, memory.content),
    fields([
      ["id", memory.id], ["summary", memory.summary], ["kind", memory.kind], ["tier", memory.tier],
      ["project", memory.project], ["session", memory.session], ["written", when(memory.createdAt)],
      ["valid from", memory.validFrom && when(memory.validFrom)], ["superseded", memory.validUntil && when(memory.validUntil)],
      ["relevance", memory.relevance], ["recalled", memory.accessCount ? `${memory.accessCount}×, last ${when(memory.lastAccessedAt)}` : "never"],
      ["tokens", memory.tokens], ["archived", memory.archived ? "yes" : null], ["labels", memory.labels.join(", ")],
      ["records", memory.records && `${memory.records.type}: ${memory.records.name}`],
    ]),
    el("h4", {}, "Provenance"),
    memory.entities.length ? chips : el("p", {}, "mentions no entity"),
    attributes ?? el("p", {}, "no attributes (a memory derived from turns names them here: sourceTurns, session, speaker)"),
  );
}

export function mountRecall(root: HTMLElement, fail: (error: unknown) => void): void {
  const form = el("form", { id: "recall-form", class: "controls" },
    el("input", { id: "recall-query", type: "search", placeholder: "Ask what the memory holds…", required: "" }),
    el("select", { id: "recall-priority", title: "priority (the budget)" },
      ...["CRITICAL", "HIGH", "MEDIUM", "LOW"].map((p) => el("option", p === "CRITICAL" ? { selected: "" } : {}, p))),
    el("select", { id: "recall-profile", title: "scoring profile" },
      ...["HYBRID", "IZANAGI", "HANZO"].map((p) => el("option", {}, p))),
    el("input", { id: "recall-project", placeholder: "project (optional)" }),
    el("input", { id: "recall-session", placeholder: "session (optional)" }),
    el("button", { type: "submit" }, "Recall"));
  const output = el("div", { id: "recall-result" });
  const panel = el("aside", { id: "recall-detail", class: "detail" }, el("p", {}, "Click a memory to see it whole."));
  root.append(form, el("div", { class: "split" }, output, panel));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    output.replaceChildren(el("p", {}, "Recalling…"));
    try {
      const { recall } = await request(ExplorerRecallDocument, {
        query: value("recall-query") ?? "",
        priority: value("recall-priority") as Priority,
        profile: value("recall-profile") as RecallProfile,
        project: value("recall-project"),
        session: value("recall-session"),
      });
      const delivered = new Map(recall.items.map((item) => [item.id, item.mode]));
      const scale = Math.max(1, recall.gates?.fullAbove ?? 0, ...recall.ranking.map((r) => r.score));
      const open = (id: string) => openMemory(id, panel).catch(fail);
      const t = recall.totals;
      output.replaceChildren(
        el("p", { class: "totals" },
          `${recall.profile}: ${t.items} of ${t.budgetItems} items, ${t.tokens} of ${t.budgetTokens} tokens` +
          (recall.timings ? ` · ${recall.timings.totalMs.toFixed(1)} ms` : "")),
        legend(recall),
        rows("Delivered", recall.items, recall, scale, delivered, open),
        rows("Ranking before the budget", recall.ranking, recall, scale, delivered, open));
    } catch (error) {
      output.replaceChildren();
      fail(error);
    }
  });
}

// The knowledge graph drawn with cytoscape.js: the caller's decision → error → fix chains, any entity's
// neighbourhood (trace), each node in its Browser-guide colour; clicking a node expands it.
import cytoscape from "cytoscape";
import { request } from "./api.js";
import { colour, count, el, fields, value } from "./dom.js";
import {
  ExplorerChainsDocument,
  ExplorerEntitiesDocument,
  ExplorerTraceDocument,
  type NodeFragment,
} from "../src/operations.js";

type Link = { type: string; fromId: string; toId: string; note?: string | null };

export function mountChains(root: HTMLElement, fail: (error: unknown) => void): { show: () => void } {
  const project = el("input", { id: "chains-project", placeholder: "project (all when empty)" });
  const search = el("input", { id: "chains-search", type: "search", placeholder: "entity name…" });
  const found = el("div", { id: "chains-found", class: "chips" });
  const colours = el("p", { class: "colours" });
  for (const type of ["DECISION", "ERROR", "PATTERN", "TECHNOLOGY", "CONCEPT", "USER_PREFERENCE"]) {
    const c = colour(type);
    colours.append(el("span", {}, el("span", { class: "key", style: `background: ${c.color}; border-color: ${c.border}` }),
      ` ${type.toLowerCase().replace("_", " ")}`));
  }
  colours.append(el("span", {}, "faded: closed (a newer decision replaced it)"));
  root.append(
    el("div", { class: "controls-row" },
      el("form", { id: "chains-form", class: "controls" }, project, el("button", { type: "submit" }, "Draw chains")),
      el("form", { id: "trace-form", class: "controls" }, search, el("button", { type: "submit" }, "Find entity"))),
    found,
  );
  const canvas = el("div", { id: "graph" });
  const panel = el("aside", { id: "chains-detail", class: "detail" }, el("p", {}, "Click a node to expand it."));
  root.append(el("div", { class: "split" }, canvas, panel));
  const status = el("p", { id: "graph-status", class: "totals" });
  root.append(status, colours);

  const graph = cytoscape({
    container: canvas,
    maxZoom: 1.5,
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(color)", "border-color": "data(border)", "border-width": 2,
          label: "data(label)", "font-size": 10, "text-wrap": "wrap", "text-max-width": "120px",
          "text-valign": "bottom", "text-margin-y": 4, width: 34, height: 34,
          "text-background-color": "#fff", "text-background-opacity": 0.85, "text-background-padding": "2px",
        },
      },
      { selector: "node.closed", style: { opacity: 0.55 } },
      { selector: "node:selected", style: { "border-width": 4, "border-color": "#222" } },
      {
        selector: "edge",
        style: {
          width: 2, "line-color": "#A5ABB6", "target-arrow-color": "#A5ABB6", "target-arrow-shape": "triangle",
          "curve-style": "bezier", label: "data(type)", "font-size": 8, "text-rotation": "autorotate",
          "text-background-color": "#fff", "text-background-opacity": 1,
        },
      },
    ],
  });

  function add(nodes: NodeFragment[], links: Link[]): number {
    let added = 0;
    for (const node of nodes) {
      if (graph.getElementById(node.id).nonempty()) continue;
      const c = colour(node.type);
      graph.add({
        group: "nodes", classes: node.active ? "" : "closed",
        data: { id: node.id, label: node.name, color: c.color, border: c.border, entity: node },
      });
      added++;
    }
    for (const link of links) {
      const id = `${link.fromId}-${link.type}-${link.toId}`;
      if (graph.getElementById(id).nonempty()) continue;
      graph.add({ group: "edges", data: { id, source: link.fromId, target: link.toId, type: link.type } });
      added++;
    }
    return added;
  }

  function layout(): void {
    graph.layout({ name: "breadthfirst", directed: true, spacingFactor: 1.4, padding: 24, animate: false }).run();
    status.textContent = `${count(graph.nodes().length, "entity", "entities")}, ${count(graph.edges().length, "edge")}`;
  }

  async function expand(id: string, depth: number): Promise<void> {
    const { trace } = await request(ExplorerTraceDocument, { from: id, maxDepth: depth });
    if (add(trace.flatMap((p) => p.nodes), trace.flatMap((p) => p.edges)) > 0 || graph.nodes().length > 0) layout();
  }

  graph.on("tap", "node", (event) => {
    const entity = event.target.data("entity") as NodeFragment;
    panel.replaceChildren(el("h3", {}, entity.name),
      fields([["type", entity.type], ["project", entity.project ?? "long term"], ["active", entity.active ? "yes" : "closed"],
        ["id", entity.id]]),
      el("p", {}, "Expanded: its neighbours are drawn."));
    expand(entity.id, 1).catch(fail);
  });

  // The chains of the project named (all when none): drawn when the tab first opens, again on "Draw chains".
  // Only the latest drawing's answer is drawn, whichever answer comes last.
  let drawings = 0;
  async function draw(): Promise<void> {
    const drawing = ++drawings;
    // Said at once, so that what the status said of the drawing before is never read as this one's.
    status.textContent = "drawing…";
    try {
      const { chains } = await request(ExplorerChainsDocument, { project: value("chains-project") });
      if (drawing !== drawings) return;
      graph.elements().remove();
      const nodes: NodeFragment[] = [];
      const links: Link[] = [];
      for (const chain of chains) {
        nodes.push(chain.error);
        if (chain.decision) {
          nodes.push(chain.decision);
          links.push({ type: "CAUSED", fromId: chain.decision.id, toId: chain.error.id });
        }
        if (chain.fix) {
          nodes.push(chain.fix);
          links.push({ type: "SOLVED_BY", fromId: chain.error.id, toId: chain.fix.id });
        }
      }
      add(nodes, links);
      layout();
      if (chains.length === 0) status.textContent = "no chains yet: record an error with its cause and fix";
    } catch (error) {
      fail(error);
    }
  }

  root.querySelector("#chains-form")!.addEventListener("submit", (event) => {
    event.preventDefault();
    draw();
  });

  root.querySelector("#trace-form")!.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const { entities } = await request(ExplorerEntitiesDocument, { search: value("chains-search"), project: value("chains-project") });
      found.replaceChildren(...entities.nodes.map((entity) => {
        const c = colour(entity.type);
        const chip = el("button", { type: "button", class: "chip", style: `background: ${c.color}; border-color: ${c.border}` },
          `${entity.type}: ${entity.name}`);
        chip.addEventListener("click", () => expand(entity.id, 2).catch(fail));
        return chip;
      }));
      if (entities.nodes.length === 0) found.textContent = "no entity of that name";
    } catch (error) {
      fail(error);
    }
  });

  // cytoscape measures its container: a tab shown after being hidden needs a resize.
  return {
    show: () => {
      graph.resize();
      if (drawings === 0) return draw();
      if (graph.nodes().length) graph.fit(undefined, 24);
    },
  };
}

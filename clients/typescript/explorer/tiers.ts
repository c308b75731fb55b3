// How full each tier of each scope is, against its capacity and compression trigger, and the
// compressions that happened (the audit log's remember lines that compressed, and transcript summaries).
import { pages, request } from "./api.js";
import { el, shorten, when } from "./dom.js";
import {
  ExplorerAuditDocument,
  ExplorerScopesDocument,
  ExplorerTiersDocument,
  type ExplorerScopesQuery,
  type ExplorerTiersQuery,
} from "../src/operations.js";

type Usage = ExplorerTiersQuery["tierUsage"][number];
// At most this many projects and sessions are measured, the most recent first.
const SCOPES = 12;

export type Scopes = { projects: string[]; sessions: { id: string; project: string | null }[] };

export function scopes(answer: ExplorerScopesQuery): Scopes {
  const sessions = new Map<string, string | null>();
  const projects = new Set<string>();
  for (const line of answer.auditLog.nodes) {
    if (line.ids[0] && !sessions.has(line.ids[0])) sessions.set(line.ids[0], line.detail ?? null);
    if (line.detail) projects.add(line.detail);
  }
  for (const memory of answer.memories.nodes) {
    if (memory.project) projects.add(memory.project);
    if (memory.session && !sessions.has(memory.session)) sessions.set(memory.session, memory.project ?? null);
  }
  return {
    projects: [...projects].slice(0, SCOPES),
    sessions: [...sessions].slice(0, SCOPES).map(([id, project]) => ({ id, project })),
  };
}

function row(usage: Usage): HTMLElement {
  const scope = usage.tier === "LONG_TERM" ? "long term" : usage.tier === "PROJECT" ? `project ${usage.project}`
    : `session ${usage.session}`;
  const fill = Math.min(usage.fill, 1);
  return el("li", { class: `tier tier-${usage.tier}`, "data-tier": usage.tier },
    el("span", { class: "scope" }, scope),
    el("div", { class: "track" },
      el("span", { class: `fill${usage.fill > usage.trigger ? " over" : ""}`, style: `width: ${(fill * 100).toFixed(2)}%` }),
      el("i", { class: "gate trigger", style: `left: ${(usage.trigger * 100).toFixed(2)}%`, title: "compression trigger" })),
    el("span", { class: "numbers" },
      `${usage.usedTokens.toLocaleString()} / ${usage.capacity.toLocaleString()} tokens · ${usage.items} memories · ` +
      `${(usage.fill * 100).toFixed(0)} % (trigger ${(usage.trigger * 100).toFixed(0)} %)`));
}

export function mountTiers(root: HTMLElement, fail: (error: unknown) => void): { show: () => Promise<void> } {
  const list = el("ol", { id: "tiers-list", class: "tiers" });
  const compressions = el("table", { id: "compressions" });
  root.append(el("h3", {}, "Fill against capacity, per tier and scope"), list,
    el("h3", {}, "Compressions"), compressions);

  async function show(): Promise<void> {
    try {
      const found = scopes(await request(ExplorerScopesDocument, {}));
      const asked = [
        { project: null, session: null },
        ...found.projects.map((project) => ({ project, session: null })),
        ...found.sessions.map((s) => ({ project: s.project, session: s.id })),
      ];
      const seen = new Set<string>();
      const usages: Usage[] = [];
      for (const scope of asked) {
        for (const usage of (await request(ExplorerTiersDocument, scope)).tierUsage) {
          const key = `${usage.tier}/${usage.project}/${usage.session}`;
          if (!seen.has(key)) usages.push(usage);
          seen.add(key);
        }
      }
      const order = { SESSION: 0, PROJECT: 1, LONG_TERM: 2 };
      usages.sort((a, b) => order[a.tier] - order[b.tier]);
      list.replaceChildren(...usages.map(row));

      const lines = await pages(async (after) =>
        (await request(ExplorerAuditDocument, { operations: ["remember", "summarize"], after })).auditLog, 5);
      const compressed = lines.filter((l) => l.operation === "summarize" || (l.detail ?? "").includes("compressed:"));
      compressions.replaceChildren(el("tr", {}, el("th", {}, "when"), el("th", {}, "what"), el("th", {}, "detail"),
        el("th", {}, "ids")));
      for (const line of compressed) {
        compressions.append(el("tr", { class: "compression" },
          el("td", {}, when(line.at)),
          el("td", {}, line.operation === "summarize" ? "transcript summarised" : "tier compressed"),
          el("td", { title: line.detail ?? "" }, shorten(line.detail ?? "", 140)),
          el("td", {}, String(line.ids.length))));
      }
      if (compressed.length === 0) {
        compressions.append(el("tr", {}, el("td", { colspan: "4" }, "no compression yet in the newest 500 writes")));
      }
    } catch (error) {
      fail(error);
    }
  }
  return { show };
}

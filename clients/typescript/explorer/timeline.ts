// A session on one time axis: its turns, its summaries (each summarisation round, and the standing
// summary), and the facts and memories derived in it. A click on a mark shows what it holds.
import { pages, request } from "./api.js";
import { colour, count, el, fields, svg, shorten, value, when } from "./dom.js";
import { ExplorerAuditDocument, ExplorerScopesDocument, ExplorerSessionDocument } from "../src/operations.js";
import { scopes } from "./tiers.js";

type Mark = { lane: string; at: number; title: string; text: string; colour: string; rows: [string, string | null][] };

const LANES = ["turns", "summaries", "facts", "memories"] as const;
const WIDTH = 1000;
const LANE = 46;
const LEFT = 90;

function draw(marks: Mark[], show: (mark: Mark) => void): SVGElement {
  const times = marks.map((m) => m.at);
  const start = Math.min(...times);
  const span = Math.max(Math.max(...times) - start, 1000);
  const x = (at: number) => LEFT + ((at - start) / span) * (WIDTH - LEFT - 20);
  const height = LANES.length * LANE + 40;
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${height}`, class: "timeline", role: "img" });
  LANES.forEach((lane, i) => {
    const y = 20 + i * LANE + LANE / 2;
    chart.append(svg("text", { x: 8, y: y + 4, class: "lane" }, lane),
      svg("line", { x1: LEFT, x2: WIDTH - 10, y1: y, y2: y, class: "lane-line" }));
  });
  for (let tick = 0; tick <= 4; tick++) {
    const at = start + (span * tick) / 4;
    const label = new Date(at).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
    chart.append(svg("text", { x: x(at), y: height - 6, class: "tick", "text-anchor": tick === 0 ? "start" : tick === 4 ? "end" : "middle" }, label));
  }
  for (const mark of marks) {
    const y = 20 + LANES.indexOf(mark.lane as (typeof LANES)[number]) * LANE + LANE / 2;
    const dot = svg("circle", { cx: x(mark.at), cy: y, r: 7, fill: mark.colour, class: `mark mark-${mark.lane}` },
      svg("title", {}, `${mark.title}: ${shorten(mark.text, 120)}`));
    dot.addEventListener("click", () => show(mark));
    chart.append(dot);
  }
  return chart;
}

export function mountTimeline(root: HTMLElement, fail: (error: unknown) => void): { show: () => Promise<void> } {
  const picker = el("select", { id: "timeline-pick" });
  const typed = el("input", { id: "timeline-session", placeholder: "or a session id" });
  const chart = el("div", { id: "timeline-chart" });
  const panel = el("aside", { id: "timeline-detail", class: "detail" }, el("p", {}, "Click a mark to read it."));
  const form = el("form", { id: "timeline-form", class: "controls" }, picker, typed, el("button", { type: "submit" }, "Show session"));
  root.append(form, el("div", { class: "split" }, chart, panel));

  const detail = (mark: Mark) => panel.replaceChildren(el("h3", {}, mark.title), el("blockquote", {}, mark.text),
    fields(mark.rows));

  async function load(id: string): Promise<void> {
    const { session, memories } = await request(ExplorerSessionDocument, { id });
    if (!session) {
      chart.replaceChildren(el("p", { class: "empty" }, `No session ${id} for this key.`));
      return;
    }
    const rounds = (await pages(async (after) =>
      (await request(ExplorerAuditDocument, { operations: ["summarize"], after })).auditLog, 3))
      .filter((line) => (line.detail ?? "").startsWith(`session=${id} `));
    const marks: Mark[] = [];
    for (const entry of session.transcript) {
      if (!entry.at) continue;
      marks.push(entry.isSummary
        ? { lane: "summaries", at: Date.parse(entry.at), title: "standing summary", text: entry.content, colour: "#8DCC93",
            rows: [["tokens", String(entry.tokens)], ["covers up to turn", String(entry.position)]] }
        : { lane: "turns", at: Date.parse(entry.at), title: `turn ${entry.position} · ${entry.role}`, text: entry.content,
            colour: entry.role === "user" ? colour("Turn").color : colour("Turn").border,
            rows: [["role", entry.role], ["tokens", String(entry.tokens)], ["ref", entry.ref], ["at", when(entry.at)]] });
    }
    for (const round of rounds) {
      marks.push({ lane: "summaries", at: Date.parse(round.at), title: "summarisation round", text: round.detail ?? "",
        colour: "#5DB665", rows: [["summary", round.ids[0]], ["turns covered", String(round.ids.length - 1)], ["at", when(round.at)]] });
    }
    for (const memory of memories.nodes) {
      if (!memory.createdAt) continue;
      const derived = memory.tier !== "SESSION";
      marks.push({ lane: derived ? "facts" : "memories", at: Date.parse(memory.createdAt),
        title: `${(memory.kind ?? "note").toLowerCase()} · ${memory.tier}`, text: memory.content,
        colour: derived ? colour("PATTERN").color : colour("Memory").color,
        rows: [["id", memory.id], ["written", when(memory.createdAt)],
          ["provenance", memory.attributes ? JSON.stringify(memory.attributes) : null]] });
    }
    const summary = el("p", { class: "totals" },
      `session ${session.id}${session.project ? ` in ${session.project}` : ""} · ${session.status} · started ` +
      `${when(session.startedAt)} · ${count(marks.filter((m) => m.lane === "turns").length, "turn")}, ` +
      `${count(marks.filter((m) => m.lane === "summaries").length, "summary", "summaries")}, ` +
      `${count(marks.filter((m) => m.lane === "facts").length, "fact")}`);
    chart.replaceChildren(summary, marks.length ? draw(marks, detail) : el("p", {}, "nothing happened in this session yet"));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const id = value("timeline-session") ?? picker.value;
    if (id) load(id).catch(fail);
  });

  async function show(): Promise<void> {
    try {
      const found = scopes(await request(ExplorerScopesDocument, {}));
      const chosen = picker.value;
      picker.replaceChildren(...found.sessions.map((s) =>
        el("option", { value: s.id }, s.project ? `${s.id} (${s.project})` : s.id)));
      if (chosen) picker.value = chosen;
      // Opened for the first time: the newest session is drawn at once.
      else if (picker.value && !chart.hasChildNodes()) await load(picker.value);
      else if (!picker.value) {
        chart.replaceChildren(el("p", { class: "empty" }, "No session yet: a session starts with startSession, or " +
          "with the first appendTurn of a conversation, and its turns, summaries and facts are drawn here."));
      }
    } catch (error) {
      fail(error);
    }
  }
  return { show };
}

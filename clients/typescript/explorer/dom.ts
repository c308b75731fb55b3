// Building the page: elements with text only (never HTML from the service), and the colours of
// Neo4j Browser's style for hippograph (/explore/style.json, from hippograph/api/browser_guide.py).

type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  for (const child of children) if (child) made.append(child);
  return made;
}

const SVG = "http://www.w3.org/2000/svg";

export function svg(tag: string, attributes: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
  for (const child of children) if (child) made.append(child);
  return made;
}

export const byId = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

export function value(id: string): string | null {
  const text = byId<HTMLInputElement>(id).value.trim();
  return text === "" ? null : text;
}

export function shorten(text: string, length: number): string {
  return text.length > length ? text.slice(0, length - 1) + "…" : text;
}

// "1 edge", "2 edges": a count with its noun, singular or plural as the count says.
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "—";
}

export type Style = Record<string, { color: string; border: string }>;

let style: Style = {};

export async function loadStyle(): Promise<void> {
  style = (await (await fetch("/explore/style.json")).json()) as Style;
}

export const colour = (label: string): { color: string; border: string } =>
  style[label] ?? { color: "#A5ABB6", border: "#9AA1AC" };

// A definition list of a record's fields, the missing ones left out.
export function fields(rows: [string, Child | string | number | boolean | null | undefined][]): HTMLElement {
  const list = el("dl");
  for (const [name, shown] of rows) {
    if (shown === null || shown === undefined || shown === "") continue;
    list.append(el("dt", {}, name), el("dd", {}, typeof shown === "object" ? shown : String(shown)));
  }
  return list;
}

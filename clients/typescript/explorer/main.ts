// The explorer's page: the key (pasted once, kept in this tab's session storage only), the four views,
// and one status line where a refusal shows with its code.
import { ApiError, key, request } from "./api.js";
import { byId, loadStyle } from "./dom.js";
import { mountChains } from "./chains.js";
import { mountRecall } from "./recall.js";
import { mountTiers } from "./tiers.js";
import { mountTimeline } from "./timeline.js";
import { ExplorerScopesDocument } from "../src/operations.js";

const status = byId<HTMLParagraphElement>("status");

function say(text: string, code: string | null = null): void {
  status.textContent = text;
  status.className = code ? "error" : "";
  if (code) status.dataset.code = code;
  else delete status.dataset.code;
}

function fail(error: unknown): void {
  if (error instanceof ApiError) say(`${error.code}: ${error.message}`, error.code);
  else say(`The service could not be reached: ${String(error)}`, "UNREACHABLE");
}

function signedIn(on: boolean): void {
  byId("key-form").hidden = on;
  byId("signed-in").hidden = !on;
  byId("views").hidden = !on;
}

const views: Record<string, { show: () => unknown }> = {};

function open(name: string): void {
  for (const tab of document.querySelectorAll<HTMLButtonElement>("nav button")) {
    tab.setAttribute("aria-selected", String(tab.dataset.view === name));
  }
  for (const section of document.querySelectorAll<HTMLElement>("#views > section")) section.hidden = section.id !== name;
  location.hash = name;
  views[name]?.show();
}

async function start(): Promise<void> {
  await loadStyle();
  mountRecall(byId("recall"), fail);
  views.recall = { show: () => undefined };
  views.chains = mountChains(byId("chains"), fail);
  views.tiers = mountTiers(byId("tiers"), fail);
  views.timeline = mountTimeline(byId("timeline"), fail);
  for (const tab of document.querySelectorAll<HTMLButtonElement>("nav button")) {
    tab.addEventListener("click", () => open(tab.dataset.view!));
  }

  byId("key-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const field = byId<HTMLInputElement>("key");
    key.set(field.value.trim());
    field.value = "";
    try {
      await request(ExplorerScopesDocument, {});  // is the key good?
      say("");
      signedIn(true);
      open(location.hash.slice(1) in views ? location.hash.slice(1) : "recall");
    } catch (error) {
      key.forget();
      fail(error);
    }
  });
  byId("forget-key").addEventListener("click", () => {
    key.forget();
    signedIn(false);
    say("The key is forgotten.");
  });

  signedIn(key.get() !== null);
  if (key.get() !== null) open(location.hash.slice(1) in views ? location.hash.slice(1) : "recall");
}

start().catch(fail);

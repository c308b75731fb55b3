// The explorer's page: the key (pasted once, kept in this tab's session storage only), the four views,
// and one status line where a refusal shows with its code. Before a key, it says what the views show;
// for a user with no memories yet, it offers the README's example instead of empty views.
import { ApiError, key, request } from "./api.js";
import { byId, loadStyle } from "./dom.js";
import { mountChains } from "./chains.js";
import { mountRecall } from "./recall.js";
import { mountTiers } from "./tiers.js";
import { mountTimeline } from "./timeline.js";
import { ExplorerRememberDocument, ExplorerStartDocument } from "../src/operations.js";

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
  byId("intro").hidden = on;
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

// The views, or the welcome while the user has no memory (the request also tells whether the key is good).
async function enter(): Promise<void> {
  const { memories } = await request(ExplorerStartDocument, {});
  const empty = memories.nodes.length === 0;
  signedIn(true);
  document.querySelector("nav")!.hidden = empty;
  if (empty) {
    for (const section of document.querySelectorAll<HTMLElement>("#views > section")) section.hidden = section.id !== "welcome";
  } else {
    open(location.hash.slice(1) in views ? location.hash.slice(1) : "recall");
  }
}

async function storeExample(button: HTMLButtonElement): Promise<void> {
  const { remember } = await request(ExplorerRememberDocument, { content: button.dataset.content! });
  if (remember.__typename !== "RememberSuccess") throw new ApiError(remember.code, remember.message);
  location.hash = "recall";
  await enter();
  byId<HTMLInputElement>("recall-query").value = button.dataset.query!;
  byId<HTMLFormElement>("recall-form").requestSubmit();
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
      await enter();
      say("");
    } catch (error) {
      key.forget();
      fail(error);
    }
  });
  const example = byId<HTMLButtonElement>("welcome-store");
  example.addEventListener("click", () => storeExample(example).catch(fail));
  byId("forget-key").addEventListener("click", () => {
    key.forget();
    signedIn(false);
    say("The key is forgotten.");
  });

  signedIn(false);
  if (key.get() !== null) await enter();
}

start().catch(fail);

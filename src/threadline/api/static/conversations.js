// Past conversations on the chat page: a search box whose hits open their session at the
// exchange found, and "edit and resend" on a question, which forks the conversation there.
// It works beside app.js through the page itself (the URL hash, the thread's elements).

import { api, ApiError } from "./api.js";
import { h } from "./render.js";

const $ = (id) => document.getElementById(id);
const form = $("conv-search");
const input = $("conv-search-input");
const results = $("conv-results");
const thread = $("thread");
const composer = $("query");

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

function currentSession() {
  return decodeURIComponent(location.hash.slice(1)) || null;
}

/** Scroll to the message at `index` once the thread shows it, and mark it for a moment. */
function revealMessage(index) {
  const show = () => {
    const target = thread.children[index];
    if (!target) return false;
    target.classList.add("conv-hit");
    target.scrollIntoView({ block: "center" });
    setTimeout(() => target.classList.remove("conv-hit"), 2500);
    return true;
  };
  const observer = new MutationObserver(() => {
    if (show()) observer.disconnect();
  });
  observer.observe(thread, { childList: true });
  setTimeout(() => observer.disconnect(), 10000);
}

function openAt(sessionId, messageIndex) {
  if (currentSession() === sessionId && thread.children[messageIndex]) {
    revealMessage(messageIndex);
    return;
  }
  revealMessage(messageIndex);
  location.hash = encodeURIComponent(sessionId);
}

function lineage(window) {
  if (!window.parent_session_id) return null;
  const root = window.root_session_id && window.root_session_id !== window.parent_session_id
    ? ` (first: ${window.root_session_id})` : "";
  return h("p", { class: "conv-lineage" }, `Forked from ${window.parent_session_id}${root}`);
}

function windowItem(window) {
  const exchanges = window.exchanges.map((exchange) =>
    h(
      "li",
      { class: exchange.hit ? "conv-exchange hit" : "conv-exchange", dataset: { hit: exchange.hit ? "1" : "" } },
      h(
        "button",
        {
          type: "button",
          class: "conv-open",
          title: "Open the conversation here",
          onclick: () => openAt(window.session_id, exchange.message_index),
        },
        h("span", { class: "conv-q" }, exchange.question || ""),
        exchange.answer ? h("span", { class: "conv-a" }, exchange.answer) : null,
      ),
    ),
  );
  return h(
    "article",
    { class: "conv-window", dataset: { session: window.session_id } },
    h("h3", { class: "conv-title" }, window.title || window.session_id),
    h("p", { class: "conv-when" }, dateFormat.format(new Date(window.updated_at))),
    lineage(window),
    h("ol", { class: "conv-exchanges" }, exchanges),
  );
}

async function search(text) {
  const q = text.trim();
  if (!q) {
    results.hidden = true;
    results.replaceChildren();
    return;
  }
  results.hidden = false;
  results.setAttribute("aria-busy", "true");
  try {
    const page = await api.searchConversations(q);
    results.replaceChildren(
      ...(page.data.length
        ? page.data.map(windowItem)
        : [h("p", { class: "conv-none" }, "No past exchange matches.")]),
    );
  } catch (err) {
    const message = err instanceof ApiError ? err.message : String(err);
    results.replaceChildren(h("p", { class: "conv-none" }, `Search failed: ${message}`));
  } finally {
    results.removeAttribute("aria-busy");
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  search(input.value);
});
input.addEventListener("search", () => search(input.value));

// ------------------------------------------------------------------ edit and resend

async function editAndResend(article) {
  const sessionId = currentSession();
  if (!sessionId) return;
  const index = [...thread.children].indexOf(article);
  const text = article.querySelector(".bubble")?.textContent || "";
  try {
    const fork = await api.forkSession(sessionId, index);
    location.hash = encodeURIComponent(fork.id);
    composer.value = text;
    composer.dispatchEvent(new Event("input"));
    composer.focus();
  } catch (err) {
    const message = err instanceof ApiError ? err.message : String(err);
    alert(`Could not fork the conversation: ${message}`);
  }
}

function pencil() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", "M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4");
  svg.append(path);
  return svg;
}

function addEditButtons() {
  for (const article of thread.querySelectorAll(".msg.user")) {
    if (article.querySelector(".conv-edit")) continue;
    article.append(
      h(
        "button",
        {
          type: "button",
          class: "conv-edit icon-button",
          // No text of its own: the message's text stays the question alone.
          "aria-label": "Edit and resend",
          title: "Edit and resend: a new conversation from this question",
          onclick: () => editAndResend(article),
        },
        pencil(),
      ),
    );
  }
}

new MutationObserver(addEditButtons).observe(thread, { childList: true });

// What a person does with an answer: rate it (thumbs, a reason on "down"), answer the
// question again, switch between the answers of a question, read the trace; and download
// the conversation. Everything goes through the API; nothing from the server becomes HTML.

import { h } from "./render.js";

export const REASONS = [
  ["wrong", "Wrong"],
  ["not_in_documents", "Not in the documents"],
  ["incomplete", "Incomplete"],
  ["wrong_source", "Wrong source"],
  ["other", "Other"],
];

/** The caller's identity as ratings record it: `local`, or `<name>#<first 8 hex of sha256(key)>`. */
export async function raterSuffix(key) {
  if (!key) return "local";
  if (!globalThis.crypto || !crypto.subtle) return "#unknown"; // not a secure context
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `#${hex.slice(0, 8)}`;
}

function mine(feedback, me) {
  return (feedback || []).find((f) => (me === "local" ? f.user === "local" : f.user.endsWith(me)));
}

const THUMB_UP = "M7 11v9H4v-9h3zm0 0l4-7c1.5 0 2.5 1 2.2 2.6L12.6 10H18a2 2 0 012 2.3l-1.1 6A2 2 0 0117 20H7";
const THUMB_DOWN = "M17 13V4h3v9h-3zm0 0l-4 7c-1.5 0-2.5-1-2.2-2.6l.6-3.4H6a2 2 0 01-2-2.3l1.1-6A2 2 0 017 4h10";

function svgIcon(d) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", d);
  svg.append(path);
  return svg;
}

/**
 * The bar under an answer. ctx: {messageId, feedback, isLast, alternatives: {index, count, ids},
 * me, rate(rating, reason, comment), unrate(), regenerate(), select(id), toast(text)}.
 */
export function actionsBar(ctx) {
  const bar = h("div", { class: "turn-actions", role: "group", "aria-label": "Rate or redo this answer" });
  if (!ctx.messageId) return bar;
  let current = mine(ctx.feedback, ctx.me);
  const up = h(
    "button",
    { type: "button", class: "icon-button small thumb", dataset: { rating: "up" }, "aria-label": "Good answer", title: "Good answer" },
    svgIcon(THUMB_UP),
  );
  const down = h(
    "button",
    { type: "button", class: "icon-button small thumb", dataset: { rating: "down" }, "aria-label": "Bad answer", title: "Bad answer" },
    svgIcon(THUMB_DOWN),
  );
  const status = h("span", { class: "feedback-status", role: "status" });
  const picker = h("form", { class: "reason-picker", hidden: true });
  const select = h(
    "select",
    { name: "reason", "aria-label": "What was wrong" },
    REASONS.map(([value, label]) => h("option", { value }, label)),
  );
  const comment = h("input", { type: "text", name: "comment", maxlength: "2000", placeholder: "Comment (optional)", "aria-label": "Comment" });
  picker.append(select, comment, h("button", { type: "submit", class: "button small" }, "Send"));

  const show = () => {
    up.setAttribute("aria-pressed", String(Boolean(current && current.rating === "up")));
    down.setAttribute("aria-pressed", String(Boolean(current && current.rating === "down")));
    status.textContent = current
      ? current.rating === "up"
        ? "Thanks"
        : `Flagged${current.reason ? `: ${REASONS.find((r) => r[0] === current.reason)?.[1] || current.reason}` : ""}`
      : "";
  };
  const send = async (rating, reason, text) => {
    try {
      current = await ctx.rate(rating, reason, text);
    } catch (err) {
      ctx.toast(`Could not rate: ${err.message}`);
    }
    show();
  };
  up.addEventListener("click", async () => {
    picker.hidden = true;
    if (current && current.rating === "up") {
      try {
        await ctx.unrate();
        current = null;
      } catch (err) {
        ctx.toast(`Could not remove the rating: ${err.message}`);
      }
      show();
    } else send("up", null, null);
  });
  down.addEventListener("click", async () => {
    if (current && current.rating === "down") {
      try {
        await ctx.unrate();
        current = null;
      } catch (err) {
        ctx.toast(`Could not remove the rating: ${err.message}`);
      }
      picker.hidden = true;
      show();
      return;
    }
    picker.hidden = !picker.hidden;
    if (!picker.hidden) select.focus();
  });
  picker.addEventListener("submit", (event) => {
    event.preventDefault();
    picker.hidden = true;
    send("down", select.value, comment.value.trim() || null);
  });
  bar.append(up, down, status);

  const alt = ctx.alternatives;
  if (alt && alt.count > 1) {
    const prev = h("button", { type: "button", class: "icon-button small", "aria-label": "Previous answer", disabled: alt.index === 0 }, "‹");
    const next = h("button", { type: "button", class: "icon-button small", "aria-label": "Next answer", disabled: alt.index === alt.count - 1 }, "›");
    prev.addEventListener("click", () => ctx.select(alt.ids[alt.index - 1]));
    next.addEventListener("click", () => ctx.select(alt.ids[alt.index + 1]));
    bar.append(h("span", { class: "alternatives" }, prev, h("span", { class: "alternatives-count" }, `${alt.index + 1}/${alt.count}`), next));
  }
  if (ctx.isLast) {
    const again = h("button", { type: "button", class: "button small regenerate" }, "Regenerate");
    again.addEventListener("click", () => ctx.regenerate());
    bar.append(again);
  }
  bar.append(picker);
  show();
  return bar;
}

/** The trace row of the detail panel: a button that fetches and shows it. */
export function traceSection(load) {
  const body = h("pre", { class: "trace-body", hidden: true });
  const button = h("button", { type: "button", class: "link-button", "aria-expanded": "false" }, "Show trace");
  let loaded = false;
  button.addEventListener("click", async () => {
    const open = button.getAttribute("aria-expanded") === "true";
    button.setAttribute("aria-expanded", String(!open));
    button.textContent = open ? "Show trace" : "Hide trace";
    body.hidden = open;
    if (open || loaded) return;
    loaded = true;
    body.textContent = "Loading…";
    try {
      const data = await load();
      body.textContent = data.trace.map((entry) => JSON.stringify(entry)).join("\n");
    } catch (err) {
      loaded = false;
      body.textContent =
        err.code === "debug_forbidden" ? "This app may not see traces." : `Could not load the trace: ${err.message}`;
    }
  });
  return h("div", { class: "detail-row trace", dataset: { key: "trace" } }, h("dt", {}, "Trace"), h("dd", {}, button, body));
}

/** Fetch an export with the API key and save it under the name the server gives. */
export async function download(response, fallbackName) {
  const blob = await response.blob();
  const disposition = response.headers.get("Content-Disposition") || "";
  const match = disposition.match(/filename="([^"]+)"/);
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: match ? match[1] : fallbackName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

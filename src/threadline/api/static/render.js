// DOM rendering of messages: a small, safe Markdown subset, citations, outline chips, details.
// Text is only ever inserted as text nodes: nothing from the server becomes HTML.

import { conversationLanguage, expandPrompt } from "./lang.js";

/** Create an element: h("button", {class: "x", onclick: fn}, "text", child). */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "hidden") el.hidden = true;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** A stroked 24×24 icon from path data. */
export function icon(d, className = "icon") {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", className);
  for (const part of [].concat(d)) {
    const path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", part);
    svg.append(path);
  }
  return svg;
}

export const ICONS = {
  pencil: ["M4 20h4L19 9l-4-4L4 16v4z", "M13.5 6.5l4 4"],
  trash: ["M4 7h16", "M9 7V4h6v3", "M6 7l1 13h10l1-13", "M10 11v6M14 11v6"],
  info: ["M12 11v6", "M12 7.5v.01", "M12 21a9 9 0 100-18 9 9 0 000 18z"],
  doc: ["M7 3h7l5 5v13H7z", "M14 3v5h5", "M10 13h6M10 17h6"],
  alert: ["M12 9v4", "M12 16.5v.01", "M10.3 4.2L2.6 18a2 2 0 001.7 3h15.4a2 2 0 001.7-3L13.7 4.2a2 2 0 00-3.4 0z"],
};

// ---------------------------------------------------------------- Markdown subset

const INLINE = /\*\*([^*\n]+?)\*\*|`([^`\n]+)`|\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]/g;

/** Inline text: **bold**, `code`, and citation markers [n] / [1, 2]. */
function inline(text, ctx) {
  const out = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) out.push(text.slice(last, match.index));
    if (match[1] !== undefined) out.push(h("strong", {}, inline(match[1], ctx)));
    else if (match[2] !== undefined) out.push(h("code", {}, match[2]));
    else out.push(...citeMarkers(match[3], ctx));
    last = match.index + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function citeMarkers(list, ctx) {
  const ids = list.split(/\s*[,;]\s*/);
  return ids.map((id) => {
    const citation = ctx.citations && ctx.citations.get(id);
    if (!citation) {
      return h("span", { class: "cite-marker pending", title: ctx.streaming ? "Source (checking…)" : undefined }, id);
    }
    const label = [citation.title, citation.section].filter(Boolean).join(" — ");
    return h(
      "button",
      {
        type: "button",
        class: "cite-marker",
        "aria-label": `Source ${id}: ${label}`,
        title: label,
        dataset: { cite: id },
        onclick: () => ctx.onCite && ctx.onCite(id),
      },
      id,
    );
  });
}

/** Paragraphs, bullet and numbered lists, headings; returns a DocumentFragment. */
export function renderMarkdown(text, ctx = {}) {
  const frag = document.createDocumentFragment();
  const lines = (text || "").replace(/\r\n?/g, "\n").split("\n");
  let paragraph = [];
  let list = null;

  const flushParagraph = () => {
    if (!paragraph.length) return;
    const p = h("p");
    paragraph.forEach((line, i) => {
      if (i) p.append(h("br"));
      append(p, inline(line, ctx));
    });
    frag.append(p);
    paragraph = [];
  };
  const flushList = () => {
    if (list) frag.append(list);
    list = null;
  };

  for (const raw of lines) {
    const line = raw.trimEnd();
    const bullet = line.match(/^\s*(?:[-*+•])\s+(.*)$/);
    const numbered = line.match(/^\s*(\d{1,3})[.)]\s+(.*)$/);
    const heading = line.match(/^\s*#{1,6}\s+(.*)$/);
    if (!line.trim()) {
      flushParagraph();
      flushList();
    } else if (bullet || numbered) {
      flushParagraph();
      const tag = bullet ? "ul" : "ol";
      if (!list || list.tagName.toLowerCase() !== tag) {
        flushList();
        list = h(tag);
        if (numbered && numbered[1] !== "1") list.setAttribute("start", numbered[1]);
      }
      list.append(h("li", {}, inline(bullet ? bullet[1] : numbered[2], ctx)));
    } else if (heading) {
      flushParagraph();
      flushList();
      frag.append(h("p", { class: "md-heading" }, h("strong", {}, inline(heading[1], ctx))));
    } else {
      flushList();
      paragraph.push(line);
    }
  }
  flushParagraph();
  flushList();
  return frag;
}

/** While streaming, the model's SUIVI block is not part of the answer: hide it. */
export function stripOutlineBlock(text) {
  const match = text.match(/\n[ \t>#*_`]*SUIVI\b[^\n]*(?:\n|$)/);
  return match ? text.slice(0, match.index) : text;
}

// ---------------------------------------------------------------- labels

const ROUTES = {
  standalone: "new question",
  followup_reference: "follow-up to a section",
  followup_context: "follow-up in context",
  tool: "catalog lookup",
  clarify: "clarification",
  reply: "conversation",
};

const OUTCOMES = {
  grounded_answer: "grounded answer",
  tool_answer: "catalog answer",
  clarify: "asks to clarify",
  reply: "reply",
};

function routeLabel(route) {
  return ROUTES[route] || (route || "").replaceAll("_", " ");
}

function followupSummary(followup) {
  if (!followup || !followup.detected) return null;
  const parts = [];
  if (followup.section_id) parts.push(followup.section_id);
  if (followup.ref_type) parts.push(followup.ref_type);
  if (followup.method) parts.push(followup.method);
  if (!followup.resolved) parts.push("unresolved");
  return parts.join(" · ");
}

// ---------------------------------------------------------------- messages

export function userMessage(text) {
  return h(
    "article",
    { class: "msg user", "aria-label": "You said" },
    h("div", { class: "bubble" }, h("p", {}, text)),
  );
}

let uid = 0;

/**
 * One assistant answer: a pending bubble while the turn streams (phase line, tokens),
 * then the final result (answer, outline chips, citations, details).
 * handlers: {onExpand(prompt), loadPassage(docId, chunkId) -> Promise<passage>}
 */
/** A passage's text and where it comes from (title, section, source). */
function passageView(data) {
  return [
    h("blockquote", { class: "passage-text" }, renderMarkdown(data.text)),
    h(
      "p",
      { class: "passage-meta" },
      icon(ICONS.doc),
      [data.title, data.section].filter(Boolean).join(" — "),
      data.source ? ` · ${data.source}` : "",
    ),
  ];
}

export class AssistantMessage {
  constructor(handlers, { userText = "" } = {}) {
    this.handlers = handlers;
    this.userText = userText;
    this.id = `a${++uid}`;
    this.text = "";
    this.phases = [];
    this.frame = 0;
    this.answer = h("div", { class: "answer", "aria-live": "polite", "aria-busy": "false" });
    this.bubble = h("div", { class: "bubble" }, this.answer);
    this.el = h("article", { class: "msg assistant", "aria-label": "threadline answered" }, this.bubble);
  }

  /** The pending state before anything arrives. */
  pending() {
    this.el.classList.add("streaming");
    this.answer.setAttribute("aria-busy", "true");
    this.status = h("p", { class: "phase", role: "status" });
    this.bubble.prepend(this.status);
    this.addPhase("thinking", "Reading the conversation…");
    this.answer.append(h("span", { class: "typing", "aria-hidden": "true" }, h("i"), h("i"), h("i")));
    return this;
  }

  addPhase(kind, text) {
    const existing = this.phases.find((p) => p.kind === kind);
    if (existing) existing.text = text;
    else this.phases.push({ kind, text });
    if (kind !== "thinking") this.phases = this.phases.filter((p) => p.kind !== "thinking");
    const items = [h("span", { class: "spinner", "aria-hidden": "true" })];
    this.phases.forEach((p, i) => {
      if (i) items.push(h("span", { class: "phase-sep", "aria-hidden": "true" }, "·"));
      items.push(h("span", { class: `phase-item phase-${p.kind}` }, p.text));
    });
    this.status.replaceChildren(...items);
  }

  /** A `phase` event: route, reformulated query, sources found. */
  phase(data) {
    if (!this.status) this.pending();
    switch (data.node) {
      case "route_turn": {
        const fu = followupSummary(data.followup);
        const label = routeLabel(data.route);
        this.addPhase("route", `${label.charAt(0).toUpperCase()}${label.slice(1)}${fu ? ` (${fu})` : ""}`);
        break;
      }
      case "reformulate":
        if (data.reformulated_query) this.addPhase("query", `Query: “${data.reformulated_query}”`);
        break;
      case "retrieve":
      case "use_tool": {
        const n = (data.sources || []).length;
        this.addPhase("sources", n ? `${n} source${n > 1 ? "s" : ""} found` : "No source found");
        if (n) this.addPhase("writing", "Writing…");
        break;
      }
      case "generate":
      case "clarify":
      case "reply":
        this.addPhase("writing", "Checking citations…");
        break;
      default:
        break;
    }
  }

  /** A `token` event: append to the answer (rendered at most once per frame). */
  token(text) {
    if (!this.status) this.pending();
    this.text += text;
    if (!this.frame) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        if (this.final) return;
        const frag = renderMarkdown(stripOutlineBlock(this.text), { streaming: true });
        // The caret goes at the end of the last paragraph or list item, not below it.
        let host = frag.lastElementChild;
        while (host && host.lastElementChild && /^(UL|OL|LI)$/.test(host.tagName)) host = host.lastElementChild;
        (host || frag).append(h("span", { class: "caret", "aria-hidden": "true" }));
        this.answer.replaceChildren(frag);
        this.handlers.onGrow && this.handlers.onGrow();
      });
    }
  }

  /** The `final` event (or a stored assistant message): this is the truth. */
  show(result) {
    this.final = result;
    if (this.frame) cancelAnimationFrame(this.frame);
    this.el.classList.remove("streaming");
    this.el.dataset.outcome = result.outcome || "";
    const citations = new Map((result.citations || []).map((c) => [String(c.id), c]));
    const ctx = { citations, onCite: (id) => this.openCitation(id, { scroll: true }) };

    const parts = [];
    if (result.outcome === "clarify") {
      parts.push(h("p", { class: "badge clarify" }, icon(ICONS.info), "Needs a precision"));
    }
    // Keep the same live region so assistive technology announces the final text once.
    this.answer.replaceChildren(renderMarkdown(result.answer, ctx));
    this.answer.setAttribute("aria-busy", "false");
    parts.push(this.answer);
    // Sources first; the outline comes last, right above the next question it offers.
    if (citations.size) parts.push(this.renderCitations([...citations.values()]));
    if (result.outline && result.outline.length) parts.push(this.renderOutline(result.outline, result.answer));
    if (result.clarify && result.clarify.options && result.clarify.options.length) {
      parts.push(this.renderClarify(result.clarify));
    }
    parts.push(this.renderDetails(result));
    // Thumbs, regenerate, other answers: the page adds them (turn_actions.js).
    const actions = this.handlers.actionsFor && this.handlers.actionsFor(result, this);
    if (actions) parts.push(actions);
    this.bubble.replaceChildren(...parts);
    this.status = null;
    return this;
  }

  /** An `error` event or a failed request. */
  error(err) {
    this.final = { error: err };
    if (this.frame) cancelAnimationFrame(this.frame);
    this.el.classList.remove("streaming");
    this.el.classList.add("failed");
    const code = err.code ? ` (${err.code})` : "";
    this.bubble.replaceChildren(
      h(
        "div",
        { class: "error-box", role: "alert" },
        icon(ICONS.alert),
        h("div", {}, h("strong", {}, "The answer failed."), " ", `${err.message || "Unexpected error."}${code}`),
      ),
    );
    this.status = null;
    return this;
  }

  renderOutline(outline, answer) {
    const lang = conversationLanguage(this.userText, answer);
    const chips = outline.map((item) => {
      const prompt = expandPrompt(item.id, lang);
      return h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: "chip",
            title: `Send “${prompt}”`,
            "aria-label": `${prompt}: ${item.title}`,
            dataset: { section: item.id, prompt },
            onclick: () => this.handlers.onExpand && this.handlers.onExpand(prompt),
          },
          h("span", { class: "chip-id" }, item.id),
          h("span", { class: "chip-title" }, item.title),
        ),
      );
    });
    return h(
      "nav",
      { class: "outline", "aria-label": "Outline: ask for a section" },
      h("h3", { class: "section-label" }, "Outline"),
      h("ul", { class: "chips" }, chips),
    );
  }

  /** The options of a decline or a question back, as chips that send their query. */
  renderClarify(clarify) {
    const chips = clarify.options.map((option) =>
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: "chip clarify-chip",
            title: `Send “${option.query}”`,
            dataset: { reason: clarify.reason, prompt: option.query },
            onclick: () => this.handlers.onExpand && this.handlers.onExpand(option.query),
          },
          h("span", { class: "chip-title" }, option.label),
        ),
      ),
    );
    const label = clarify.reason === "not_in_documents" ? "Closest documents" : "Did you mean";
    return h(
      "nav",
      { class: "outline clarify-options", "aria-label": label, dataset: { reason: clarify.reason } },
      h("h3", { class: "section-label" }, label),
      h("ul", { class: "chips" }, chips),
    );
  }

  renderCitations(citations) {
    this.citationItems = new Map();
    const items = citations.map((c) => {
      const passageId = `${this.id}-passage-${c.id}`;
      const canOpen = Boolean(c.doc_id && c.chunk_id);
      const passage = h("div", { class: "passage", id: passageId, hidden: true });
      const label = h(
        "span",
        { class: "citation-text" },
        h("span", { class: "citation-title" }, c.title || c.doc_id),
        c.section ? h("span", { class: "citation-section" }, ` — ${c.section}`) : null,
      );
      const source = c.source ? h("span", { class: "citation-source" }, c.source) : null;
      const toggle = canOpen
        ? h(
            "button",
            {
              type: "button",
              class: "citation-toggle",
              "aria-expanded": "false",
              "aria-controls": passageId,
              onclick: () => this.openCitation(String(c.id), { toggle: true }),
            },
            h("span", { class: "citation-num" }, c.id),
            label,
            source,
          )
        : h("div", { class: "citation-toggle static" }, h("span", { class: "citation-num" }, c.id), label, source);
      const li = h("li", { class: "citation", dataset: { cite: c.id } }, toggle, passage);
      this.citationItems.set(String(c.id), { citation: c, li, toggle, passage, loaded: false });
      return li;
    });
    return h(
      "section",
      { class: "sources", "aria-label": "Sources" },
      h("h3", { class: "section-label" }, "Sources"),
      h("ol", { class: "citations" }, items),
    );
  }

  /** Show a citation's passage (fetched once, on demand). */
  async openCitation(id, { toggle = false, scroll = false } = {}) {
    const item = this.citationItems && this.citationItems.get(id);
    if (!item) return;
    const { citation, li, toggle: button, passage } = item;
    if (scroll) {
      li.scrollIntoView({ block: "nearest", behavior: "smooth" });
      li.classList.remove("flash");
      void li.offsetWidth; // restart the highlight animation
      li.classList.add("flash");
    }
    if (button.tagName !== "BUTTON") return;
    const open = button.getAttribute("aria-expanded") === "true";
    if (open && toggle) {
      button.setAttribute("aria-expanded", "false");
      passage.hidden = true;
      return;
    }
    button.setAttribute("aria-expanded", "true");
    passage.hidden = false;
    if (item.loaded) return;
    item.loaded = true;
    passage.replaceChildren(h("p", { class: "passage-loading" }, "Loading the passage…"));
    try {
      // The citation's digest of the text it quoted: a later version's text is refused.
      const data = await this.handlers.loadPassage(citation.doc_id, citation.chunk_id, citation.text_sha256);
      passage.replaceChildren(...passageView(data));
    } catch (err) {
      if (err.code === "passage_changed") {
        passage.replaceChildren(this.changedPassage(citation, passage));
        return;
      }
      item.loaded = false;
      passage.replaceChildren(
        h("p", { class: "passage-error", role: "alert" }, `Could not load the passage: ${err.message}${err.code ? ` (${err.code})` : ""}`),
      );
    }
  }

  /** Say the cited document changed since the answer; its current passage only on request. */
  changedPassage(citation, passage) {
    const show = h(
      "button",
      {
        type: "button",
        class: "passage-current",
        onclick: async () => {
          show.disabled = true;
          try {
            const data = await this.handlers.loadPassage(citation.doc_id, citation.chunk_id, null);
            passage.replaceChildren(
              h("p", { class: "passage-changed" }, "The current version (not the text this answer quoted):"),
              ...passageView(data),
            );
          } catch (err) {
            show.disabled = false;
            passage.append(
              h("p", { class: "passage-error", role: "alert" }, `Could not load the passage: ${err.message}${err.code ? ` (${err.code})` : ""}`),
            );
          }
        },
      },
      "Show the current version",
    );
    return h(
      "div",
      { class: "passage-changed", role: "status" },
      h("p", {}, "This document has changed since this answer: the passage it quoted is no longer kept."),
      show,
    );
  }

  renderDetails(result) {
    const fu = result.followup || {};
    const rows = [
      ["Route", result.route],
      ["Outcome", result.outcome],
      ["Stop reason", result.stop_reason],
      ["Search query", result.search_query],
      ["Follow-up", fu.detected ? (fu.resolved ? "detected, resolved" : "detected, not resolved") : "none"],
      ["Reference type", fu.ref_type],
      ["Section", fu.section_id],
      ["Method", fu.method],
    ];
    if (result.llm_calls !== undefined && result.llm_calls !== null) rows.push(["LLM calls", String(result.llm_calls)]);
    if (result.latency_ms) rows.push(["Latency", `${Math.round(result.latency_ms)} ms`]);
    const summaryBits = [routeLabel(result.route)];
    const fuText = followupSummary(fu);
    if (fuText) summaryBits.push(fuText);
    if (result.outcome === "clarify" || result.outcome === "reply") summaryBits.push(OUTCOMES[result.outcome]);
    return h(
      "details",
      { class: "turn-details" },
      h("summary", {}, h("span", { class: "details-label" }, "How this was understood"), h("span", { class: "details-hint" }, summaryBits.join(" · "))),
      h(
        "dl",
        {},
        rows
          .filter(([, value]) => value !== undefined && value !== null && value !== "")
          .map(([key, value]) => h("div", { class: "detail-row", dataset: { key: key.toLowerCase().replaceAll(" ", "_") } }, h("dt", {}, key), h("dd", {}, value))),
        this.handlers.traceFor && result.message_id ? this.handlers.traceFor(result) : null,
      ),
    );
  }
}

/** A stored assistant message's metadata in the shape of a `final` event. */
export function storedResult(message) {
  const meta = message.metadata || {};
  return {
    answer: message.content,
    outline: meta.outline || [],
    citations: meta.citations || [],
    route: meta.route,
    outcome: meta.outcome,
    stop_reason: meta.stop_reason,
    search_query: meta.search_query,
    followup: meta.followup || {},
    llm_calls: meta.llm_calls,
    message_id: message.id,
    feedback: meta.feedback || [],
  };
}

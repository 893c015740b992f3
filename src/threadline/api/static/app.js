// The threadline chat page: sessions in the sidebar, a streamed conversation in the main pane.

import { api, ApiError, getKey, keyRemembered, setKey, setKeyPrompt, streamChat } from "./api.js";
import { AssistantMessage, h, icon, ICONS, storedResult, userMessage } from "./render.js";
import { actionsBar, download, raterSuffix, traceSection } from "./turn_actions.js";

const $ = (id) => document.getElementById(id);

const els = {
  app: $("app"),
  sidebar: $("sidebar"),
  scrim: $("scrim"),
  menu: $("menu-button"),
  list: $("session-list"),
  listEmpty: $("session-empty"),
  newSession: $("new-session"),
  title: $("chat-title"),
  messages: $("messages"),
  thread: $("thread"),
  empty: $("empty-state"),
  composer: $("composer"),
  query: $("query"),
  send: $("send-button"),
  toast: $("toast"),
  serviceInfo: $("service-info"),
  keyButton: $("key-button"),
  keyDialog: $("key-dialog"),
  keyReason: $("key-dialog-reason"),
  keyInput: $("key-input"),
  keyForget: $("key-forget"),
  keyRemember: $("key-remember"),
  keyCancel: $("key-cancel"),
  confirmDialog: $("confirm-dialog"),
  confirmText: $("confirm-dialog-text"),
  exportActions: $("export-actions"),
  exportMd: $("export-md"),
  exportJson: $("export-json"),
};

const state = {
  sessions: [],
  current: null, // session id
  busy: false,
  loadToken: 0,
  me: "local", // who this page rates as (see turn_actions.js raterSuffix)
};

// ---------------------------------------------------------------- small helpers

let toastTimer = 0;
function toast(message, kind = "error") {
  els.toast.textContent = message;
  els.toast.dataset.kind = kind;
  els.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    els.toast.hidden = true;
  }, 6000);
}

function describe(err) {
  if (err instanceof ApiError) return `${err.message}${err.code ? ` (${err.code})` : ""}`;
  return err && err.message ? err.message : String(err);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const dateFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" });

function when(iso) {
  const then = new Date(iso);
  const seconds = (then.getTime() - Date.now()) / 1000;
  const abs = Math.abs(seconds);
  if (abs < 45) return "just now";
  if (abs < 3600) return relative.format(Math.round(seconds / 60), "minute");
  if (abs < 86400) return relative.format(Math.round(seconds / 3600), "hour");
  if (abs < 7 * 86400) return relative.format(Math.round(seconds / 86400), "day");
  return dateFormat.format(then);
}

function sessionTitle(session) {
  return (session && session.title) || "Untitled conversation";
}

// While a turn streams, follow the answer down until the question reaches the top of
// the view (a long answer is then read from its start); stop if the person scrolls up.
let follow = null;

function scrollToTurn(anchor) {
  const m = els.messages;
  const bottom = m.scrollHeight - m.clientHeight;
  const limit = anchor ? Math.max(anchor.offsetTop - 16, 0) : bottom;
  const target = Math.min(bottom, limit);
  if (target > m.scrollTop + 1) m.scrollTop = target;
}

function followTurn() {
  if (follow && follow.active) scrollToTurn(follow.anchor);
}

function stopFollowing() {
  if (follow) follow.active = false;
}

els.messages.addEventListener("wheel", (event) => event.deltaY < 0 && stopFollowing(), { passive: true });
els.messages.addEventListener("touchmove", stopFollowing, { passive: true });
els.messages.addEventListener("keydown", (event) => {
  if (["ArrowUp", "PageUp", "Home"].includes(event.key)) stopFollowing();
});

function setBusy(busy) {
  state.busy = busy;
  els.app.classList.toggle("busy", busy);
  els.send.disabled = busy;
  els.send.setAttribute("aria-busy", String(busy));
  for (const chip of document.querySelectorAll(".chip")) chip.disabled = busy;
}

// ---------------------------------------------------------------- API key

function promptKey(reason) {
  return new Promise((resolve) => {
    els.keyReason.textContent = reason || "This server requires an API key.";
    els.keyInput.value = "";
    els.keyRemember.checked = keyRemembered();
    els.keyForget.hidden = !getKey();
    const onClose = () => {
      els.keyDialog.removeEventListener("close", onClose);
      const value = els.keyInput.value.trim();
      const saved = els.keyDialog.returnValue === "save" && value;
      resolve(saved ? { key: value, remember: els.keyRemember.checked } : null);
    };
    els.keyDialog.returnValue = "";
    els.keyDialog.addEventListener("close", onClose);
    els.keyDialog.showModal();
    els.keyInput.focus();
  });
}

async function changeKey() {
  const answer = await promptKey(getKey() ? "Replace the saved API key." : "Set the API key sent with every request.");
  if (answer) {
    setKey(answer.key, answer.remember);
    state.me = await raterSuffix(getKey());
    toast("API key saved.", "info");
    loadHealth();
    await refreshSessions();
  }
}

// ---------------------------------------------------------------- confirmation

function confirmDialog(text) {
  return new Promise((resolve) => {
    els.confirmText.textContent = text;
    els.confirmDialog.returnValue = "";
    const onClose = () => {
      els.confirmDialog.removeEventListener("close", onClose);
      resolve(els.confirmDialog.returnValue === "confirm");
    };
    els.confirmDialog.addEventListener("close", onClose);
    els.confirmDialog.showModal();
  });
}

// ---------------------------------------------------------------- sidebar

function openSidebar(open) {
  els.app.classList.toggle("sidebar-open", open);
  els.scrim.hidden = !open;
  els.menu.setAttribute("aria-expanded", String(open));
}

function renderSessions() {
  els.list.replaceChildren(...state.sessions.map(sessionItem));
  els.listEmpty.hidden = state.sessions.length > 0;
}

function sessionItem(session) {
  const current = session.id === state.current;
  const title = sessionTitle(session);
  const count = session.message_count;
  const meta = `${count ? `${Math.ceil(count / 2)} turn${count > 2 ? "s" : ""}` : "empty"} · ${when(session.updated_at)}`;
  return h(
    "li",
    { class: `session${current ? " current" : ""}`, dataset: { id: session.id } },
    h(
      "button",
      {
        type: "button",
        class: "session-open",
        "aria-current": current ? "page" : undefined,
        onclick: () => selectSession(session.id),
      },
      h("span", { class: "session-title" }, title),
      h("span", { class: "session-meta" }, meta),
    ),
    h(
      "div",
      { class: "session-actions" },
      h(
        "button",
        {
          type: "button",
          class: "icon-button small",
          "aria-label": `Rename “${title}”`,
          title: "Rename",
          dataset: { action: "rename" },
          onclick: (event) => startRename(session.id, event.currentTarget.closest("li")),
        },
        icon(ICONS.pencil),
      ),
      h(
        "button",
        {
          type: "button",
          class: "icon-button small danger",
          "aria-label": `Delete “${title}”`,
          title: "Delete",
          dataset: { action: "delete" },
          onclick: () => removeSession(session.id),
        },
        icon(ICONS.trash),
      ),
    ),
  );
}

async function refreshSessions() {
  try {
    const page = await api.listSessions();
    state.sessions = page.data;
    renderSessions();
    const current = state.sessions.find((s) => s.id === state.current);
    if (current) setTitle(current);
  } catch (err) {
    toast(`Could not list conversations: ${describe(err)}`);
  }
}

function setTitle(session) {
  const title = session ? sessionTitle(session) : "New conversation";
  els.title.textContent = title;
  document.title = `${title} · threadline`;
}

function startRename(id, li) {
  const session = state.sessions.find((s) => s.id === id);
  if (!session || !li) return;
  const input = h("input", {
    type: "text",
    class: "rename-input",
    value: session.title || "",
    maxlength: "200",
    "aria-label": "New title",
  });
  const form = h("form", { class: "rename-form" }, input);
  let done = false;
  const finish = async (save) => {
    if (done) return;
    done = true;
    const title = input.value.trim();
    if (save && title && title !== session.title) {
      try {
        const updated = await api.renameSession(id, title);
        Object.assign(session, updated);
      } catch (err) {
        toast(`Could not rename: ${describe(err)}`);
      }
    }
    renderSessions();
    if (id === state.current) setTitle(session);
    const button = els.list.querySelector(`li[data-id="${CSS.escape(id)}"] .session-open`);
    if (button) button.focus();
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    finish(true);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      finish(false);
    }
  });
  input.addEventListener("blur", () => finish(true));
  li.classList.add("renaming");
  li.replaceChildren(form);
  input.focus();
  input.select();
}

async function removeSession(id) {
  const session = state.sessions.find((s) => s.id === id);
  if (!session) return;
  const ok = await confirmDialog(`“${sessionTitle(session)}” and its messages will be deleted.`);
  if (!ok) return;
  try {
    await api.deleteSession(id);
  } catch (err) {
    if (!(err instanceof ApiError && err.code === "session_not_found")) {
      toast(`Could not delete: ${describe(err)}`);
      return;
    }
  }
  state.sessions = state.sessions.filter((s) => s.id !== id);
  if (state.current === id) showSession(null);
  renderSessions();
  toast("Conversation deleted.", "info");
}

// ---------------------------------------------------------------- conversation

const handlers = {
  onExpand: (prompt) => send(prompt),
  loadPassage: (docId, chunkId, textSha256) => api.passage(docId, chunkId, textSha256),
  onGrow: () => followTurn(),
  actionsFor: (result) => {
    const sessionId = state.current;
    const messageId = result.message_id;
    return actionsBar({
      messageId,
      feedback: result.feedback,
      isLast: Boolean(result.is_last),
      alternatives: result.alternatives,
      me: state.me,
      rate: async (rating, reason, comment) => {
        const saved = await api.rate(sessionId, messageId, { rating, reason, comment });
        return { user: saved.user, rating: saved.rating, reason: saved.reason };
      },
      unrate: () => api.unrate(sessionId, messageId),
      regenerate: () => regenerate(),
      select: (id) => selectAnswer(id),
      toast,
    });
  },
  traceFor: (result) => traceSection(() => api.trace(state.current, result.message_id)),
};

/** A session's messages as the page shows them: each question with the answer kept. */
function keptTurns(messages) {
  const turns = [];
  let current = null;
  for (const message of messages) {
    if (message.role === "user") {
      current = { question: message, answers: [] };
      turns.push(current);
      continue;
    }
    const meta = message.metadata || {};
    const owner = meta.alternative_of ? turns.find((t) => t.question.id === meta.alternative_of) : current;
    if (owner) owner.answers.push(message);
    else turns.push({ question: null, answers: [message] });
  }
  return turns;
}

async function regenerate() {
  if (state.busy || !state.current) return;
  setBusy(true);
  const sessionId = state.current;
  try {
    await api.regenerate(sessionId);
  } catch (err) {
    toast(`Could not answer again: ${describe(err)}`);
  } finally {
    setBusy(false);
  }
  if (state.current === sessionId) await selectSession(sessionId, { force: true });
}

async function selectAnswer(messageId) {
  const sessionId = state.current;
  try {
    await api.selectAnswer(sessionId, messageId);
  } catch (err) {
    toast(`Could not switch answers: ${describe(err)}`);
    return;
  }
  if (state.current === sessionId) await selectSession(sessionId, { force: true });
}

async function exportCurrent(format) {
  if (!state.current) return;
  try {
    await download(await api.exportSession(state.current, format), `${state.current}.${format}`);
  } catch (err) {
    toast(`Could not download: ${describe(err)}`);
  }
}

function showSession(id) {
  state.current = id;
  state.loadToken += 1;
  els.thread.replaceChildren();
  els.empty.hidden = false;
  const session = state.sessions.find((s) => s.id === id);
  setTitle(session);
  els.exportActions.hidden = !id;
  const url = id ? `#${encodeURIComponent(id)}` : location.pathname + location.search;
  if (location.hash !== (id ? url : "")) history.replaceState(null, "", url);
}

async function selectSession(id, { force = false } = {}) {
  openSidebar(false);
  if (id === state.current && els.thread.childElementCount && !force) return;
  const keepScroll = force ? els.messages.scrollTop : null;
  showSession(id);
  renderSessions();
  const token = state.loadToken;
  els.thread.setAttribute("aria-busy", "true");
  try {
    const page = await api.messages(id);
    if (token !== state.loadToken) return;
    const nodes = [];
    const turns = keptTurns(page.data);
    turns.forEach((turn, index) => {
      const lastUser = turn.question ? turn.question.content : "";
      if (turn.question) nodes.push(userMessage(turn.question.content));
      // Only the answer the user kept is shown; the others are a click away.
      const keptAt = turn.answers.findIndex((a) => !(a.metadata && a.metadata.superseded));
      if (keptAt < 0) return;
      const result = storedResult(turn.answers[keptAt]);
      result.is_last = index === turns.length - 1 && Boolean(turn.question);
      result.alternatives = { index: keptAt, count: turn.answers.length, ids: turn.answers.map((a) => a.id) };
      nodes.push(new AssistantMessage(handlers, { userText: lastUser }).show(result).el);
    });
    els.thread.replaceChildren(...nodes);
    els.empty.hidden = nodes.length > 0;
    setBusy(state.busy);
    if (keepScroll !== null) {
      els.messages.scrollTop = keepScroll;
    } else {
      els.messages.scrollTop = 0;
      scrollToTurn([...els.thread.querySelectorAll(".msg.user")].pop());
    }
  } catch (err) {
    if (token !== state.loadToken) return;
    if (err instanceof ApiError && err.code === "session_not_found") {
      toast("This conversation no longer exists.");
      state.sessions = state.sessions.filter((s) => s.id !== id);
      showSession(null);
      renderSessions();
    } else {
      toast(`Could not load the conversation: ${describe(err)}`);
    }
  } finally {
    els.thread.removeAttribute("aria-busy");
  }
}

async function newSession() {
  try {
    const session = await api.createSession();
    state.sessions.unshift(session);
    showSession(session.id);
    renderSessions();
    openSidebar(false);
    els.query.focus();
    return session;
  } catch (err) {
    toast(`Could not create a conversation: ${describe(err)}`);
    return null;
  }
}

// Messages sent while an answer is still arriving (Enter, a chip clicked as soon as it
// shows) wait their turn here instead of being dropped.
const queued = [];

async function send(text) {
  const query = (text || "").trim();
  if (!query) return;
  if (state.busy) {
    queued.push(query);
    return;
  }
  setBusy(true);
  try {
    if (!state.current) {
      const session = await newSession();
      if (!session) return;
    }
    const sessionId = state.current;
    els.empty.hidden = true;
    // Only the last question can be answered again.
    for (const button of els.thread.querySelectorAll(".regenerate")) button.remove();
    const question = userMessage(query);
    const answer = new AssistantMessage(handlers, { userText: query }).pending();
    els.thread.append(question, answer.el);
    follow = { anchor: question, active: true };
    followTurn();

    let finished = false;
    try {
      for await (const { event, data } of streamChat({ query, session_id: sessionId })) {
        if (event === "phase") answer.phase(data);
        else if (event === "token") answer.token(data.text || "");
        else if (event === "final") {
          answer.show({ ...data, message_id: (data.message_ids || [])[1], feedback: [], is_last: true });
          finished = true;
        } else if (event === "error") {
          answer.error(data);
          finished = true;
        }
        followTurn();
      }
      if (!finished) answer.error({ code: "stream_ended", message: "The connection closed before the answer was complete." });
    } catch (err) {
      answer.error(err instanceof ApiError ? err : { code: "network_error", message: describe(err) });
    }
    followTurn();
    follow = null;
  } finally {
    setBusy(false);
  }
  // The list refreshes in the background: the next message must not wait for it.
  refreshSessions().catch(() => {});
  if (queued.length) send(queued.shift());
}

// ---------------------------------------------------------------- composer

function autosize() {
  els.query.style.height = "auto";
  els.query.style.height = `${Math.min(els.query.scrollHeight, 220)}px`;
}

els.composer.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = els.query.value;
  if (!text.trim()) return;
  els.query.value = "";
  autosize();
  send(text);
});

els.query.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    els.composer.requestSubmit();
  }
});
els.query.addEventListener("input", autosize);

els.newSession.addEventListener("click", () => newSession());
els.menu.addEventListener("click", () => openSidebar(!els.app.classList.contains("sidebar-open")));
els.scrim.addEventListener("click", () => openSidebar(false));
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && els.app.classList.contains("sidebar-open")) openSidebar(false);
});
els.keyButton.addEventListener("click", changeKey);
els.exportMd.addEventListener("click", () => exportCurrent("md"));
els.exportJson.addEventListener("click", () => exportCurrent("json"));
els.keyCancel.addEventListener("click", () => els.keyDialog.close("cancel"));
els.keyForget.addEventListener("click", () => {
  setKey("");
  els.keyDialog.close("forget");
  toast("API key forgotten.", "info");
});
window.addEventListener("hashchange", () => {
  const id = decodeURIComponent(location.hash.slice(1));
  if (id && id !== state.current) selectSession(id);
});

// ---------------------------------------------------------------- start

async function loadHealth() {
  try {
    const health = await api.health();
    // The count is the caller's own tenant's, and only given once a key is accepted.
    const passages =
      typeof health.chunks === "number" ? `${new Intl.NumberFormat().format(health.chunks)} passages` : "ready";
    els.serviceInfo.textContent = `${passages} · ${health.embeddings} · ${health.llm} model`;
  } catch {
    els.serviceInfo.textContent = "Service not ready";
  }
}

async function start() {
  setKeyPrompt(promptKey);
  await refreshSessions();
  state.me = await raterSuffix(getKey());
  loadHealth(); // after the sessions: by then the key, if one is needed, is known
  const id = decodeURIComponent(location.hash.slice(1));
  if (id && state.sessions.some((s) => s.id === id)) await selectSession(id);
  else showSession(null);
  document.body.classList.add("ready");
}

start();

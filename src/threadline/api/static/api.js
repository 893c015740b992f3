// HTTP client of the threadline API: JSON errors, API keys, and SSE over fetch.

const KEY_STORAGE = "threadline.apiKey";

/** An error answer of the API ({"error": {"code", "message"}}), or a network failure. */
export class ApiError extends Error {
  constructor(status, code, message, details = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

// The key lives in this tab's session storage (gone when the browser session ends);
// only a person who asks to be remembered gets it in local storage.
export function getKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE) || localStorage.getItem(KEY_STORAGE) || "";
  } catch {
    return "";
  }
}

export function setKey(key, remember = false) {
  try {
    sessionStorage.removeItem(KEY_STORAGE);
    localStorage.removeItem(KEY_STORAGE);
    if (key) (remember ? localStorage : sessionStorage).setItem(KEY_STORAGE, key);
  } catch {
    /* storage disabled: the key lives for this request only */
  }
}

export function keyRemembered() {
  try {
    return Boolean(localStorage.getItem(KEY_STORAGE));
  } catch {
    return false;
  }
}

// Asks the person for a key; set by the page. Returns a Promise<{key, remember}|null>.
let keyPrompt = null;
let pendingPrompt = null;

export function setKeyPrompt(fn) {
  keyPrompt = fn;
}

function askForKey(reason) {
  // Several requests may fail with 401 at once: ask only once.
  if (!pendingPrompt) {
    pendingPrompt = Promise.resolve(keyPrompt ? keyPrompt(reason) : null).finally(() => {
      pendingPrompt = null;
    });
  }
  return pendingPrompt;
}

async function readError(response) {
  try {
    const body = await response.json();
    if (body && body.error && body.error.code) return body.error;
  } catch {
    /* not JSON */
  }
  return { code: `http_${response.status}`, message: response.statusText || `HTTP ${response.status}` };
}

/** fetch with the API key, JSON bodies and errors as ApiError; asks for a key on 401. */
async function send(path, { method = "GET", body, signal, accept = "application/json" } = {}) {
  for (;;) {
    const headers = { Accept: accept };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const key = getKey();
    if (key) headers.Authorization = `Bearer ${key}`;
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (err && err.name === "AbortError") throw err;
      throw new ApiError(0, "network_error", "The server could not be reached.");
    }
    if (response.status === 401) {
      const error = await readError(response);
      const reason = key
        ? "The saved API key was refused. Enter a valid key."
        : "This server requires an API key.";
      const answer = await askForKey(reason);
      if (answer) {
        setKey(answer.key, answer.remember);
        continue;
      }
      throw new ApiError(401, error.code, error.message);
    }
    if (!response.ok) {
      const error = await readError(response);
      throw new ApiError(response.status, error.code, error.message, error.details);
    }
    return response;
  }
}

async function json(path, options) {
  const response = await send(path, options);
  return response.status === 204 ? null : response.json();
}

const seg = encodeURIComponent;

export const api = {
  health: () => json("/health"),
  listSessions: () => json("/sessions?limit=200"),
  createSession: () => json("/sessions", { method: "POST", body: {} }),
  renameSession: (id, title) => json(`/sessions/${seg(id)}`, { method: "PATCH", body: { title } }),
  deleteSession: (id) => json(`/sessions/${seg(id)}`, { method: "DELETE" }),
  messages: (id) => json(`/sessions/${seg(id)}/messages`),
  passage: (docId, chunkId, textSha256) =>
    json(
      `/documents/${seg(docId)}/chunks/${seg(chunkId)}` +
        (textSha256 ? `?${new URLSearchParams({ text_sha256: textSha256 })}` : ""),
    ),
  rate: (id, messageId, body) =>
    json(`/sessions/${seg(id)}/messages/${seg(messageId)}/feedback`, { method: "POST", body }),
  unrate: (id, messageId) => json(`/sessions/${seg(id)}/messages/${seg(messageId)}/feedback`, { method: "DELETE" }),
  regenerate: (id) => json(`/sessions/${seg(id)}/regenerate`, { method: "POST", body: {} }),
  selectAnswer: (id, messageId) => json(`/sessions/${seg(id)}/messages/${seg(messageId)}/select`, { method: "POST" }),
  trace: (id, messageId) => json(`/sessions/${seg(id)}/messages/${seg(messageId)}/trace`),
  exportSession: (id, format) => send(`/sessions/${seg(id)}/export?format=${seg(format)}`, { accept: "*/*" }),
  searchConversations: (q, { k = 5, before = 2, after = 1, offset = 0 } = {}) =>
    json(`/conversations/search?${new URLSearchParams({ q, k, before, after, offset })}`),
  forkSession: (id, atMessage) =>
    json(`/sessions/${seg(id)}/fork`, { method: "POST", body: { at_message: atMessage } }),
  closeSession: (id) => json(`/sessions/${seg(id)}/close`, { method: "POST" }),
};

/** Parse one SSE block ("event: x\ndata: {...}") into {event, data}. */
export function parseEvent(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length) return null;
  try {
    return { event, data: JSON.parse(data.join("\n")) };
  } catch {
    return null;
  }
}

/**
 * POST /chat/stream and yield its events ({event, data}) as they arrive.
 * EventSource cannot POST, so this reads the response body as a stream.
 */
export async function* streamChat(body, { signal } = {}) {
  const response = await send("/chat/stream", {
    method: "POST",
    body,
    signal,
    accept: "text/event-stream",
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = parseEvent(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (event) yield event;
    }
  }
  const last = parseEvent(buffer);
  if (last) yield last;
}

// Lectern chat widget: <lectern-chat>, one ES module, no dependencies, no build step.
// Served by `lectern serve` at /widget.js. Embed with
//   <script type="module" src="https://HOST/widget.js" data-key="pk_..."></script>
// or place <lectern-chat host="https://HOST" key="pk_..."></lectern-chat> after loading the module.
// Answers are rendered by building DOM nodes from a small Markdown subset: never innerHTML, so HTML in
// an answer shows as text and only http(s), relative and #anchor links are made clickable.

const SELF = new URL(import.meta.url);
const STORE_PREFIX = "lectern-chat:";
const LEVELS = { high: "High confidence", medium: "Medium confidence", low: "Low confidence", insufficient: "Not in the documents" };

const CSS = `
:host{--_accent:var(--lectern-accent,#2e5bd8);--_accent-fg:var(--lectern-accent-fg,#fff);--_bg:var(--lectern-bg,#fff);
--_fg:var(--lectern-fg,#1c1e21);--_muted:var(--lectern-muted,#555a64);--_border:var(--lectern-border,#d0d4dc);
--_soft:var(--lectern-soft,#f2f4f8);--_error:var(--lectern-error,#b3261e);--_font:var(--lectern-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);
--_mono:var(--lectern-mono,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace);--_radius:var(--lectern-radius,12px);
all:initial;font-family:var(--_font);font-size:15px;line-height:1.5;color:var(--_fg)}
:host([data-dark]){--_accent:var(--lectern-accent,#8fb0ff);--_accent-fg:var(--lectern-accent-fg,#0b1020);--_bg:var(--lectern-bg,#1b1d22);
--_fg:var(--lectern-fg,#e6e8ec);--_muted:var(--lectern-muted,#a9afbb);--_border:var(--lectern-border,#3a3f4a);--_soft:var(--lectern-soft,#262a31);--_error:var(--lectern-error,#ffb4ab)}
*{box-sizing:border-box;font:inherit;color:inherit}
button{cursor:pointer;border:1px solid var(--_border);background:var(--_bg);border-radius:8px;padding:4px 10px;min-height:32px}
button:hover{background:var(--_soft)}
:focus-visible{outline:3px solid var(--_accent);outline-offset:2px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.launcher{position:fixed;right:20px;bottom:20px;z-index:var(--lectern-z,2147483000);background:var(--_accent);color:var(--_accent-fg);
border:0;border-radius:999px;padding:12px 18px;font-weight:600;box-shadow:0 4px 16px rgba(0,0,0,.25)}
.launcher:hover{background:var(--_accent);filter:brightness(1.1)}
.panel{position:fixed;right:20px;bottom:84px;z-index:var(--lectern-z,2147483000);width:min(420px,calc(100vw - 16px));
height:min(640px,calc(100vh - 104px));display:flex;flex-direction:column;background:var(--_bg);color:var(--_fg);
border:1px solid var(--_border);border-radius:var(--_radius);box-shadow:0 8px 32px rgba(0,0,0,.3);overflow:hidden}
.panel[hidden]{display:none}
:host([mode=page]) .panel{position:static;width:100%;height:100%;box-shadow:none;border-radius:0;border:0}
@media (max-width:480px){:host(:not([mode=page])) .panel{right:8px;left:8px;bottom:76px;width:auto;height:calc(100vh - 92px)}}
header{display:flex;align-items:center;gap:6px;padding:8px 10px;border-bottom:1px solid var(--_border)}
header h2{flex:1;margin:0;font-size:16px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:12px}
.msg{max-width:100%;overflow-wrap:anywhere}
.user{align-self:flex-end;background:var(--_accent);color:var(--_accent-fg);padding:8px 12px;border-radius:12px 12px 2px 12px;max-width:85%;white-space:pre-wrap}
.user .ctx{display:block;opacity:.85;font-size:13px;border-left:2px solid currentColor;padding-left:6px;margin-bottom:4px}
.bot{background:var(--_soft);padding:8px 12px;border-radius:12px 12px 12px 2px}
.bot p,.bot ul,.bot ol,.bot pre,.bot h3{margin:0 0 8px}.bot>.body>:last-child{margin-bottom:0}
.bot h3{font-size:15px;font-weight:600}
.bot code{font-family:var(--_mono);font-size:13px;background:var(--_bg);padding:0 3px;border-radius:4px}
.bot pre{background:var(--_bg);padding:8px;border-radius:6px;overflow-x:auto}.bot pre code{padding:0}
a{color:var(--_accent);text-decoration:underline}
a.cite{font-size:12px;vertical-align:super;text-decoration:none;font-weight:600;padding:0 1px}
.meta{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin-top:8px;font-size:13px;color:var(--_muted)}
.badge{border:1px solid currentColor;border-radius:999px;padding:0 8px;font-size:12px;font-weight:600}
.badge.high{color:#1b7f3b}.badge.medium{color:#8a6100}.badge.low,.badge.insufficient{color:var(--_error)}
:host([data-dark]) .badge.high{color:#7ddc97}:host([data-dark]) .badge.medium{color:#f0c454}
.sources{margin:8px 0 0;padding-left:22px;font-size:13px}.sources li{margin:2px 0}
.related-title,.sources-title{margin:8px 0 0;font-size:13px;font-weight:600}
.actions{display:flex;gap:4px;margin-left:auto}.actions svg{width:14px;height:14px;fill:currentColor;vertical-align:middle}.actions button{min-height:28px;padding:2px 8px;font-size:13px}
button[aria-pressed=true]{background:var(--_accent);color:var(--_accent-fg);border-color:var(--_accent)}
.fb{display:flex;gap:6px;margin-top:6px}.fb textarea{flex:1;min-height:32px}
.stopped{font-size:13px;color:var(--_muted);font-style:italic}
.error{color:var(--_error);display:flex;gap:8px;align-items:center;flex-wrap:wrap;font-size:14px}
form{border-top:1px solid var(--_border);padding:8px 10px;display:flex;flex-direction:column;gap:6px}
.row{display:flex;gap:6px;align-items:flex-end}
textarea{flex:1;resize:none;border:1px solid var(--_border);border-radius:8px;padding:8px;background:var(--_bg);min-height:40px;max-height:120px}
.send{background:var(--_accent);color:var(--_accent-fg);border-color:var(--_accent);min-height:40px}
.send:hover{background:var(--_accent);filter:brightness(1.1)}
.chip{display:flex;gap:6px;align-items:center;font-size:13px;background:var(--_soft);border-radius:8px;padding:4px 8px}
.chip q{flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.chip[hidden],.only[hidden]{display:none}
.only{font-size:13px;display:flex;gap:6px;align-items:center}
.hint{font-size:12px;color:var(--_muted)}
.ask-sel{position:fixed;z-index:var(--lectern-z,2147483000);background:var(--_accent);color:var(--_accent-fg);border:0;
box-shadow:0 2px 8px rgba(0,0,0,.3);font-size:13px;font-weight:600}
.ask-sel:hover{background:var(--_accent)}
.ask-sel[hidden]{display:none}
`;

// --- Markdown (a safe subset) -------------------------------------------------------------------

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v == null) continue;
    if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid != null && kid !== false) el.append(kid);
  return el;
}

// Only web and in-page links are followed; javascript:, data:, vbscript: and the like become text.
export function safeUrl(raw, base) {
  const text = String(raw || "").trim();
  if (!text) return null;
  if (text.startsWith("#")) return text;
  try {
    const url = new URL(text, base || location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

const INLINE = /(`[^`]+`)|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)\s]+)\)|\[(\d{1,2})\]/g;

function inline(text, ctx) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1]) out.push(h("code", { text: m[1].slice(1, -1) }));
    else if (m[2]) out.push(h("strong", {}, inline(m[2], ctx)));
    else if (m[3]) out.push(h("em", {}, inline(m[3], ctx)));
    else if (m[4]) {
      const href = safeUrl(m[5]);
      out.push(href ? h("a", { href }, inline(m[4], ctx)) : m[4]);
    } else if (m[6]) {
      const n = Number(m[6]);
      const src = ctx.sources[n - 1];
      const href = src && safeUrl(src.url);
      out.push(href ? h("a", { class: "cite", href, title: sourceTitle(src), "aria-label": `source ${n}: ${sourceTitle(src)}` }, `[${n}]`) : m[0]);
    }
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function renderMarkdown(text, sources) {
  const ctx = { sources: sources || [] };
  const root = document.createDocumentFragment();
  const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) root.append(h("p", {}, inline(para.join(" "), ctx)));
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("```")) {
      flush(); list = null;
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) code.push(lines[i]);
      root.append(h("pre", {}, h("code", { text: code.join("\n") })));
      continue;
    }
    const item = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      const tag = item[1] ? "ul" : "ol";
      if (!list || list.tagName.toLowerCase() !== tag) root.append((list = h(tag)));
      list.append(h("li", {}, inline(item[3], ctx)));
      continue;
    }
    const head = /^#{1,6}\s+(.*)$/.exec(line);
    if (head) { flush(); list = null; root.append(h("h3", {}, inline(head[1], ctx))); continue; }
    if (!line.trim()) { flush(); list = null; continue; }
    if (list && /^\s{2,}\S/.test(line)) { list.lastChild.append(" ", ...inline(line.trim(), ctx)); continue; }
    list = null;
    para.push(line.trim());
  }
  flush();
  return root;
}

// A thumb icon (Material Icons' thumb_up path, Apache 2.0): emoji fonts are not everywhere.
const THUMB = "M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z";
function thumb(down) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  if (down) svg.setAttribute("transform", "rotate(180)");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", THUMB);
  svg.append(path);
  return svg;
}

function sourceTitle(s) {
  return [s.chapter, s.section].filter((x, i, a) => x && a.indexOf(x) === i).join(" › ") || s.url || "source";
}

// --- helpers --------------------------------------------------------------------------------------

function uuid4() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
  const x = [...b].map((v) => v.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

class HttpError extends Error {
  constructor(status, body, retryAfter) { super(body?.error?.message || `HTTP ${status}`); this.status = status; this.body = body; this.retryAfter = retryAfter; }
}

// A sentence a reader can act on, never a stack trace.
function explain(err) {
  if (err instanceof HttpError) {
    if (err.status === 429) return `Too many questions right now. Please wait ${err.retryAfter || "a few"} seconds and try again.`;
    if (err.status === 503) return "The assistant is temporarily unavailable. Please try again in a moment.";
    if (err.status === 401 || err.status === 403) return "This site's assistant is not set up to answer here (its key was refused).";
    if (err.status === 400 || err.status === 413) return `The question could not be sent: ${err.message}`;
    return "Something went wrong while answering. Please try again.";
  }
  if (err && err.code) return `The answer failed: ${err.message || err.code}`;
  return "Could not reach the assistant. Check your connection and try again.";
}

async function* sse(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
      if (data) yield JSON.parse(data);
    }
  }
}

// --- the element ----------------------------------------------------------------------------------

export class LecternChat extends HTMLElement {
  static observedAttributes = ["theme"];

  constructor() {
    super();
    this.root = this.attachShadow({ mode: "open" });
    this.busy = null;
    this.selection = "";
    this.state = { session_id: null, messages: [] };
  }

  get host() { return (this.getAttribute("host") || SELF.origin).replace(/\/+$/, ""); }
  get key() { return this.getAttribute("key") || ""; }
  get storeKey() { return STORE_PREFIX + this.host + ":" + (this.getAttribute("storage-key") || this.key); }
  get isPage() { return this.getAttribute("mode") === "page"; }

  connectedCallback() {
    if (this.panel) return;
    const title = this.getAttribute("title") || "Ask the docs";
    this.removeAttribute("title"); // a tooltip over the whole page otherwise
    const ids = { panel: "lectern-panel", input: "lectern-input", log: "lectern-log" };
    this.root.append(h("style", { text: CSS }));
    this.launcher = h("button", { class: "launcher", type: "button", "aria-expanded": "false", "aria-controls": ids.panel, "aria-keyshortcuts": "Control+/", on: { click: () => this.toggle() } }, this.getAttribute("launcher-label") || title);
    this.live = h("div", { class: "sr", "aria-live": "polite", "aria-atomic": "true" });
    this.log = h("div", { class: "log", id: ids.log, role: "log", "aria-label": "Conversation", tabindex: "0" });
    this.input = h("textarea", { id: ids.input, rows: "2", placeholder: this.getAttribute("placeholder") || "Ask a question about these docs…", maxlength: "1000" });
    this.input.addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); this.submit(); } });
    this.sendBtn = h("button", { class: "send", type: "submit" }, "Send");
    this.stopBtn = h("button", { type: "button", hidden: true, on: { click: () => this.stop() } }, "Stop");
    this.chipText = h("q");
    this.chip = h("div", { class: "chip", hidden: true }, h("span", { text: "About:" }), this.chipText, h("button", { type: "button", "aria-label": "Remove the selected text", on: { click: () => this.setSelection("") } }, "×"));
    this.onlyBox = h("input", { type: "checkbox" });
    this.only = h("label", { class: "only", hidden: true }, this.onlyBox, "Answer from the selected text only");
    this.form = h("form", { on: { submit: (e) => { e.preventDefault(); this.submit(); } } },
      this.chip, this.only,
      h("div", { class: "row" }, h("label", { class: "sr", for: ids.input }, "Your question"), this.input, this.stopBtn, this.sendBtn),
      h("div", { class: "hint", text: "Answers come from the documentation and cite it. Enter sends, Shift+Enter adds a line." }));
    this.panel = h("section", { class: "panel", id: ids.panel, role: this.isPage ? "region" : "dialog", "aria-label": title, hidden: !this.isPage },
      h("header", {}, h("h2", { text: title }),
        h("button", { type: "button", on: { click: () => this.reset() } }, "New conversation"),
        this.isPage ? null : h("button", { type: "button", "aria-label": "Close", on: { click: () => this.close() } }, "×")),
      this.log, this.form, this.live);
    this.panel.addEventListener("keydown", (e) => { if (e.key === "Escape" && !this.isPage) { e.stopPropagation(); this.close(); } });
    this.askSel = h("button", { class: "ask-sel", type: "button", hidden: true, on: { mousedown: (e) => e.preventDefault(), click: () => this.askAboutSelection() } }, "Ask about this");
    if (!this.isPage) this.root.append(this.launcher, this.askSel);
    this.root.append(this.panel);
    this.restore();
    this.applyTheme();
    this.media = matchMedia("(prefers-color-scheme: dark)");
    this.onMedia = () => this.applyTheme();
    this.media.addEventListener("change", this.onMedia);
    this.themeObserver = new MutationObserver(() => this.applyTheme());
    this.themeObserver.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme", "class"] });
    this.onKey = (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "/") { e.preventDefault(); this.captureSelection(); this.isPage ? this.input.focus() : this.toggle(); }
    };
    document.addEventListener("keydown", this.onKey);
    this.onSel = () => { clearTimeout(this.selTimer); this.selTimer = setTimeout(() => this.offerSelection(), 150); };
    document.addEventListener("selectionchange", this.onSel);
    if (this.isPage) this.input.focus();
  }

  disconnectedCallback() {
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("selectionchange", this.onSel);
    this.media?.removeEventListener("change", this.onMedia);
    this.themeObserver?.disconnect();
  }

  attributeChangedCallback() { if (this.panel) this.applyTheme(); }

  // Light or dark: the element's theme attribute, else the page's data-theme (Docusaurus), else the OS.
  applyTheme() {
    const set = this.getAttribute("theme");
    const page = document.documentElement.getAttribute("data-theme");
    const dark = set === "dark" || (set !== "light" && (page ? page === "dark" : matchMedia("(prefers-color-scheme: dark)").matches));
    this.toggleAttribute("data-dark", dark);
  }

  open() {
    if (this.isPage) return;
    this.panel.hidden = false;
    this.launcher.setAttribute("aria-expanded", "true");
    this.input.focus();
  }

  close() {
    this.panel.hidden = true;
    this.launcher.setAttribute("aria-expanded", "false");
    this.launcher.focus();
  }

  toggle() { this.panel.hidden ? this.open() : this.close(); }

  // --- ask about a selection ---

  pageSelection() {
    const sel = document.getSelection();
    if (!sel || sel.isCollapsed || sel.rangeCount === 0) return null;
    const node = sel.anchorNode;
    if (node && this.contains(node)) return null;
    const text = sel.toString().trim();
    return text ? { text: text.slice(0, 10000), rect: sel.getRangeAt(0).getBoundingClientRect() } : null;
  }

  offerSelection() {
    if (this.isPage) return;
    const found = this.pageSelection();
    if (!found) { this.askSel.hidden = true; return; }
    const { rect } = found;
    this.askSel.style.top = `${Math.max(4, rect.top - 40)}px`;
    this.askSel.style.left = `${Math.min(Math.max(4, rect.left), innerWidth - 140)}px`;
    this.askSel.hidden = false;
  }

  captureSelection() {
    const found = this.pageSelection();
    if (found) this.setSelection(found.text);
  }

  askAboutSelection() {
    this.captureSelection();
    this.askSel.hidden = true;
    this.open();
  }

  setSelection(text) {
    this.selection = text;
    this.chipText.textContent = text;
    this.chip.hidden = !text;
    this.only.hidden = !text;
    if (!text) this.onlyBox.checked = false;
  }

  // --- conversation state (kept in localStorage until "New conversation") ---

  restore() {
    try {
      const saved = JSON.parse(localStorage.getItem(this.storeKey) || "null");
      if (saved && typeof saved.session_id === "string" && Array.isArray(saved.messages)) this.state = saved;
    } catch { /* storage unavailable or corrupt: start afresh */ }
    for (const m of this.state.messages) this.log.append(m.role === "user" ? this.userBubble(m) : this.botBubble(m).el);
    this.log.scrollTop = this.log.scrollHeight;
  }

  save() {
    try { localStorage.setItem(this.storeKey, JSON.stringify(this.state)); } catch { /* private mode */ }
  }

  reset() {
    this.busy?.abort();
    this.state = { session_id: null, messages: [] };
    try { localStorage.removeItem(this.storeKey); } catch { /* ignore */ }
    this.log.replaceChildren();
    this.setSelection("");
    this.live.textContent = "New conversation started.";
    this.input.focus();
  }

  // --- asking ---

  headers() {
    const headers = { "Content-Type": "application/json", Accept: "text/event-stream" };
    if (this.key) headers["X-API-Key"] = this.key;
    return headers;
  }

  submit() {
    const text = this.input.value.trim();
    if (!text || this.busy) return;
    this.input.value = "";
    const ask = { role: "user", text, context: this.selection || undefined, only: this.selection ? this.onlyBox.checked : undefined };
    this.setSelection("");
    this.ask(ask);
  }

  async ask(question) {
    this.log.querySelector(".error")?.remove();
    if (!this.state.session_id) this.state.session_id = uuid4();
    this.state.messages.push(question);
    this.save();
    this.log.append(this.userBubble(question));
    const answer = { role: "assistant", text: "", meta: null };
    const view = this.botBubble(answer);
    this.log.append(view.el);
    this.live.textContent = "Answering…";
    const controller = new AbortController();
    this.busy = controller;
    this.stopBtn.hidden = false;
    this.sendBtn.disabled = true;
    let pending = 0;
    const paint = () => { pending = 0; view.update(); this.log.scrollTop = this.log.scrollHeight; };
    const body = { message: question.text, session_id: this.state.session_id };
    if (question.context) { body.user_context = question.context; body.selected_text_only = !!question.only; }
    try {
      const response = await fetch(`${this.host}/chat/stream`, { method: "POST", headers: this.headers(), body: JSON.stringify(body), signal: controller.signal });
      if (!response.ok) {
        const data = await response.json().catch(() => null);
        throw new HttpError(response.status, data, response.headers.get("Retry-After"));
      }
      for await (const event of sse(response)) {
        if (event.type === "token") {
          answer.text += event.content;
          if (!pending) pending = requestAnimationFrame(paint);
        } else if (event.type === "done") {
          cancelAnimationFrame(pending);
          answer.meta = event.metadata;
          answer.text = event.metadata.response;
          view.update();
          this.live.textContent = answer.text;
          break;
        } else if (event.type === "error") {
          throw Object.assign(new Error(event.error?.message), { code: event.error?.code || "error" });
        }
      }
      if (!answer.meta) throw new Error("stream ended early");
      this.state.messages.push(answer);
    } catch (err) {
      cancelAnimationFrame(pending);
      if (controller.signal.aborted) {
        answer.stopped = true;
        view.update();
        if (answer.text) this.state.messages.push(answer); else view.el.remove();
        this.live.textContent = "Stopped.";
      } else {
        view.el.remove();
        this.showError(explain(err), question);
      }
    } finally {
      this.busy = null;
      this.stopBtn.hidden = true;
      this.sendBtn.disabled = false;
      this.save();
      this.log.scrollTop = this.log.scrollHeight;
      if (this.shadowRoot.activeElement === null || this.shadowRoot.activeElement === this.stopBtn) this.input.focus();
    }
  }

  stop() { this.busy?.abort(); }

  showError(sentence, question) {
    const retry = h("button", { type: "button", on: { click: () => {
      el.remove();
      const i = this.state.messages.lastIndexOf(question);
      if (i >= 0) this.state.messages.splice(i, 1);
      [...this.log.querySelectorAll(".user")].pop()?.remove();
      this.ask(question);
    } } }, "Retry");
    const el = h("div", { class: "error", role: "alert" }, h("span", { text: sentence }), retry);
    this.log.append(el);
  }

  userBubble(m) {
    return h("div", { class: "msg user" }, m.context ? h("span", { class: "ctx", text: m.context.length > 160 ? m.context.slice(0, 160) + "…" : m.context }) : null, m.text);
  }

  botBubble(m) {
    const body = h("div", { class: "body" });
    const extra = h("div");
    const el = h("div", { class: "msg bot" }, body, extra);
    const update = () => {
      const meta = m.meta;
      body.replaceChildren(renderMarkdown(m.text, meta?.sources));
      extra.replaceChildren();
      if (m.stopped) extra.append(h("p", { class: "stopped", text: "Stopped." }));
      if (!meta) return;
      const sources = meta.sources || [];
      const refused = meta.should_answer === false || !sources.length;
      if (sources.length && !refused) {
        extra.append(h("p", { class: "sources-title", text: "Sources" }),
          h("ol", { class: "sources" }, sources.map((s) => h("li", {}, link(s)))));
      }
      const related = meta.related || [];
      if (refused && related.length) {
        extra.append(h("p", { class: "related-title", text: "Related sections" }),
          h("ul", { class: "sources related" }, related.map((s) => h("li", {}, link(s)))));
      }
      const level = meta.confidence_level || "insufficient";
      const copy = h("button", { type: "button", on: { click: () => this.copy(m.text, copy) } }, "Copy");
      const up = h("button", { type: "button", "aria-pressed": String(m.rating === "up"), "aria-label": "Helpful", on: { click: () => this.rate(m, "up", up, down, extra) } }, thumb(false));
      const down = h("button", { type: "button", "aria-pressed": String(m.rating === "down"), "aria-label": "Not helpful", on: { click: () => this.rate(m, "down", up, down, extra) } }, thumb(true));
      extra.append(h("div", { class: "meta" }, h("span", { class: `badge ${level}`, text: LEVELS[level] || level }), h("span", { class: "actions" }, copy, up, down)));
    };
    const link = (s) => {
      const href = safeUrl(s.url);
      return href ? h("a", { href }, sourceTitle(s)) : sourceTitle(s);
    };
    update();
    return { el, update };
  }

  async copy(text, button) {
    try { await navigator.clipboard.writeText(text); button.textContent = "Copied"; }
    catch { button.textContent = "Copy failed"; }
    this.live.textContent = button.textContent;
    setTimeout(() => { button.textContent = "Copy"; }, 1500);
  }

  async rate(m, rating, up, down, extra) {
    m.rating = rating;
    up.setAttribute("aria-pressed", String(rating === "up"));
    down.setAttribute("aria-pressed", String(rating === "down"));
    this.save();
    this.sendFeedback(m, rating, "");
    extra.querySelector(".fb")?.remove();
    if (rating === "down") {
      const box = h("textarea", { rows: "1", "aria-label": "What was missing or wrong? (optional)", placeholder: "What was missing or wrong? (optional)", maxlength: "2000" });
      const form = h("form", { class: "fb", on: { submit: (e) => { e.preventDefault(); this.sendFeedback(m, rating, box.value.trim()); form.replaceWith(h("p", { class: "hint", text: "Thank you for the feedback." })); } } },
        box, h("button", { type: "submit" }, "Send"));
      extra.append(form);
      box.focus();
    } else {
      this.live.textContent = "Thank you for the feedback.";
    }
  }

  async sendFeedback(m, rating, comment) {
    if (!m.meta || m.meta.message_seq == null) return;
    try {
      await fetch(`${this.host}/feedback`, { method: "POST", headers: this.headers(), body: JSON.stringify({ session_id: m.meta.session_id, message_seq: m.meta.message_seq, rating, comment: comment || undefined }) });
    } catch { /* feedback is best effort */ }
  }
}

if (!customElements.get("lectern-chat")) customElements.define("lectern-chat", LecternChat);

// One script tag is enough: without a <lectern-chat> on the page, add one configured from the tag's data-*.
function autoMount() {
  if (document.querySelector("lectern-chat")) return;
  const tag = [...document.querySelectorAll("script[src]")].find((s) => s.src === SELF.href);
  if (!tag || tag.dataset.mount === "false") return;
  const el = document.createElement("lectern-chat");
  for (const [k, v] of Object.entries(tag.dataset)) el.setAttribute(k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()), v);
  document.body.append(el);
}
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", autoMount);
else autoMount();

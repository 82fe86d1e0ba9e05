/**
 * Front end of dqkit.widgets.AddressAutocomplete: an anywidget ES module with no build step and no dependencies.
 *
 * Why it is split this way: everything that decides *what* the widget does (debounce, dropping stale answers,
 * keyboard commands, highlight ranges, the request/response channel, the search → refine → format flow) lives
 * in pure exported functions and a DOM-free controller, so `node --test widgets/test` can check it in
 * milliseconds. `render` at the bottom is a thin view that turns controller state into ARIA combobox markup.
 *
 * Wire protocol over the widget's comm (anywidget `model.send` / `msg:custom`):
 *   browser → kernel  {proto, kind: "request", id, op, params}      op: search | refine | step_in | format
 *   kernel → browser  {proto, kind: "response", id, ok, result}    or {..., ok: false, error: {type, message}}
 */

export const PROTOCOL = "dqkit.autocomplete.v1";

const defaultTimers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (t) => globalThis.clearTimeout(t),
};

// ---------------------------------------------------------------------------------------------------------------
// Pure helpers

/**
 * Split `text` into runs of matched / unmatched characters for highlighting.
 * `matched` holds [start, end) pairs in code points (Python string indices), as the service sends them.
 * Bad ranges (reversed, out of bounds, non-numeric) are clipped or ignored; overlapping ones are merged.
 * @returns {{text: string, match: boolean}[]}
 */
export function highlightSegments(text, matched) {
  const chars = Array.from(typeof text === "string" ? text : "");
  const n = chars.length;
  const ranges = [];
  for (const r of Array.isArray(matched) ? matched : []) {
    if (!Array.isArray(r) || r.length < 2) continue;
    let [a, b] = r;
    if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
    a = Math.max(0, Math.min(n, Math.trunc(a)));
    b = Math.max(0, Math.min(n, Math.trunc(b)));
    if (b > a) ranges.push([a, b]);
  }
  ranges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const merged = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  const out = [];
  let pos = 0;
  for (const [a, b] of merged) {
    if (a > pos) out.push({ text: chars.slice(pos, a).join(""), match: false });
    out.push({ text: chars.slice(a, b).join(""), match: true });
    pos = b;
  }
  if (pos < n || out.length === 0) out.push({ text: chars.slice(pos).join(""), match: false });
  return out;
}

function attribute(suggestion, name) {
  for (const a of suggestion?.additional_attributes ?? []) {
    if (a && a.name === name) return String(a.value ?? "");
  }
  return "";
}

/**
 * What picking a suggestion does: "final" (it carries a format link: format it), "range" (unresolvable_range:
 * ask for the number and refine), "multiples" (several addresses: list them, let the user type to refine)
 * or "group" (a street or building without those flags: step in).
 */
export function classifySuggestion(suggestion) {
  if (suggestion && typeof suggestion.format === "string" && suggestion.format !== "") return "final";
  if (attribute(suggestion, "unresolvable_range").toLowerCase() === "true") return "range";
  if (attribute(suggestion, "multiples").toLowerCase() === "true") return "multiples";
  return "group";
}

const KIND_HINT = {
  final: "",
  range: "enter a number",
  multiples: "choose a unit",
  group: "more addresses",
};

/** Turn one wire suggestion into what the view paints. */
export function toItem(suggestion) {
  const text = String(suggestion?.text ?? "");
  const kind = classifySuggestion(suggestion);
  return {
    key: String(suggestion?.global_address_key ?? ""),
    text,
    kind,
    hint: KIND_HINT[kind],
    segments: highlightSegments(text, suggestion?.matched),
  };
}

const CONFIDENCE_WHEN_EMPTY = {
  "No matches": "No matches",
  "Too many matches": "Too many matches: type more of the address",
  "Insufficient search terms": "Type more of the address",
};

/** The status line (also the screen-reader announcement) for a suggestion list. */
export function describeList(result, count) {
  const confidence = String(result?.confidence ?? "");
  if (count === 0) return CONFIDENCE_WHEN_EMPTY[confidence] ?? (confidence ? `No suggestions (${confidence})` : "No matches");
  let s = count === 1 ? "1 suggestion" : `${count} suggestions`;
  if (result?.more_results_available) s += ", more available: type more to narrow";
  return s;
}

export const ADDRESS_LINES = [
  "address_line_1",
  "address_line_2",
  "address_line_3",
  "locality",
  "region",
  "postal_code",
  "country",
];

/** One-line text of a 7-line address: "1 Main St, Apt 2, Springfield IL 62701, USA". */
/**
 * The component breakdown as [label, text] rows: a flat {name: text} object (nested objects are flattened to
 * "a.b"), empty values left out; [] when there is none, so the 7 lines show alone.
 */
export function componentRows(components, prefix = "") {
  if (!components || typeof components !== "object") return [];
  const rows = [];
  for (const [k, v] of Object.entries(components)) {
    const name = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === "object") rows.push(...componentRows(v, name));
    else if (v !== null && v !== undefined && String(v) !== "") rows.push([name.replaceAll("_", " "), String(v)]);
  }
  return rows;
}

export function singleLine(address) {
  if (!address || typeof address !== "object") return "";
  const v = (k) => String(address[k] ?? "").trim();
  const lastLine = [v("locality"), [v("region"), v("postal_code")].filter(Boolean).join(" ")]
    .filter(Boolean)
    .join(" ");
  return [v("address_line_1"), v("address_line_2"), v("address_line_3"), lastLine, v("country")]
    .filter(Boolean)
    .join(", ");
}

/**
 * The keyboard command for a key pressed in the combobox (ARIA APG "list autocomplete, manual selection").
 * state: {open, active, count, hasText, refining, chosen}. Returns null when the key is not the widget's business
 * (the browser then handles it: caret moves, typing, Tab). `chosen`: the box holds a picked address (or one whose
 * pick is being formatted); Escape then only closes, never clears: the choice is kept.
 */
export function keyCommand(key, state, mods = {}) {
  const { open = false, active = -1, count = 0, hasText = false, refining = false, chosen = false } = state ?? {};
  switch (key) {
    case "ArrowDown":
      if (count === 0) return null;
      if (!open) return { type: "open", index: mods.altKey ? active : active < 0 ? 0 : active };
      if (mods.altKey) return null;
      return { type: "move", index: active < 0 || active >= count - 1 ? 0 : active + 1 };
    case "ArrowUp":
      if (count === 0) return null;
      if (!open) return { type: "open", index: count - 1 };
      return { type: "move", index: active <= 0 ? count - 1 : active - 1 };
    case "PageDown":
      if (!open || count === 0) return null;
      return { type: "move", index: Math.min(count - 1, Math.max(0, active) + 5) };
    case "PageUp":
      if (!open || count === 0) return null;
      return { type: "move", index: Math.max(0, active - 5) };
    case "Enter":
      if (open && active >= 0 && active < count) return { type: "pick", index: active };
      if (refining) return { type: "submit" };
      return null;
    case "Escape":
      if (open) return { type: "close" };
      if (refining) return { type: "leave" };
      if (chosen) return { type: "close" };
      if (hasText) return { type: "clear" };
      return null;
    case "Tab":
      return open ? { type: "close", keepFocus: false } : null;
    default:
      return null;
  }
}

/**
 * Leading-edge debounce: the first call after a quiet spell runs at once (no added latency at typing speed);
 * calls that come within `wait` ms of the previous one are coalesced into a single trailing call with the newest
 * arguments, `wait` ms after the last of them. So a burst (auto-repeat, paste, a fast typist) costs at most two
 * requests, and an ordinary keystroke is answered without waiting.
 */
export function createDebouncer(fn, wait, timers = defaultTimers) {
  let timer = null;
  let pending = null;
  const open = () => {
    timer = timers.setTimeout(expire, wait);
  };
  function expire() {
    timer = null;
    if (pending) {
      const args = pending;
      pending = null;
      open();
      fn(...args);
    }
  }
  return {
    call(...args) {
      if (timer === null) {
        open();
        fn(...args);
        return;
      }
      pending = args;
      timers.clearTimeout(timer);
      open();
    },
    cancel() {
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      pending = null;
    },
    get pending() {
      return pending !== null;
    },
  };
}

function randomPrefix() {
  return Math.random().toString(36).slice(2, 10);
}

export class ChannelError extends Error {
  constructor(type, message) {
    super(message);
    this.name = "ChannelError";
    this.type = type;
  }
}

/**
 * Request/response over a one-way message pipe: each request gets an id, the answer carrying that id settles
 * its promise; no answer within `timeoutMs` rejects it (a kernel busy running a cell does not answer widget
 * messages). `receive` returns false for messages that are not answers of ours.
 */
export function createChannel(send, { timeoutMs = 20000, timers = defaultTimers, prefix = randomPrefix() } = {}) {
  // Ids carry a per-view prefix: every view of the widget gets every answer (the comm broadcasts), so two views
  // of one widget must not mistake each other's answers for their own.
  let nextId = 1;
  const pending = new Map();
  function request(op, params) {
    const id = `${prefix}-${nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = timers.setTimeout(() => {
        pending.delete(id);
        reject(
          new ChannelError(
            "timeout",
            `No answer from the kernel in ${Math.round(timeoutMs / 1000)} s (is a cell still running?)`,
          ),
        );
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      try {
        send({ proto: PROTOCOL, kind: "request", id, op, params });
      } catch (e) {
        timers.clearTimeout(timer);
        pending.delete(id);
        reject(new ChannelError("send", `Could not reach the kernel: ${e?.message ?? e}`));
      }
    });
  }
  function receive(msg) {
    if (!msg || msg.proto !== PROTOCOL || msg.kind !== "response") return false;
    const p = pending.get(msg.id);
    if (!p) return true; // ours, but timed out or disposed already
    pending.delete(msg.id);
    timers.clearTimeout(p.timer);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new ChannelError(msg.error?.type ?? "error", msg.error?.message ?? "The kernel reported an error"));
    return true;
  }
  function dispose() {
    for (const [, p] of pending) {
      timers.clearTimeout(p.timer);
      p.reject(new ChannelError("closed", "The widget was closed"));
    }
    pending.clear();
  }
  return {
    request,
    receive,
    dispose,
    get inFlight() {
      return pending.size;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Controller: the widget's behaviour without a DOM

const REFINE_PROMPT = {
  range: "Type the house number",
  multiples: "Type the unit, apartment or suite",
  group: "Type to narrow down",
};

/**
 * The state machine behind the view. `request(op, params) -> Promise` talks to the kernel; `onChange(state)`
 * repaints; `onListApplied({query, t0, count})` fires right after a keystroke's list was repainted (latency).
 *
 * Staleness rule: every keystroke bumps a generation; an answer to a request issued in an older generation is
 * dropped (it would paint suggestions for text that is no longer in the box).
 *
 * A chosen address (picked here, or set by the kernel: `valueSet`) belongs to the text that names it: once the
 * user types other text, the choice is dropped (`onChoiceDropped()`: the view clears `.value`), so an old address
 * is never shown under the suggestions, or the "No matches", of new text.
 */
export function createController({
  request,
  onChange = () => {},
  onListApplied = () => {},
  onChoiceDropped = () => {},
  getCountry = () => "USA",
  debounceMs = 80,
  slowMs = 1000,
  timers = defaultTimers,
  now = () => Date.now(),
} = {}) {
  const state = {
    query: "", // text in the box
    inputRevision: 0, // bumped when the controller (not the user) replaces the box's text
    open: false,
    items: [],
    active: -1,
    status: "",
    error: "",
    busy: false,
    slow: false,
    refine: null, // {key, text, kind, prompt} while asking for a unit or number
    chosen: "", // single line of the last formatted address
    dropped: 0, // answers discarded as stale (for diagnostics and tests)
  };
  let generation = 0;
  let lastSearch = null; // {query, result} to restore when leaving refine mode
  let pendingFormat = null; // the pick whose format answer is awaited
  let inFlight = 0;
  let slowTimer = null;

  const changed = () => onChange(state);

  function track(promise) {
    inFlight += 1;
    state.busy = true;
    if (slowTimer === null) {
      slowTimer = timers.setTimeout(() => {
        slowTimer = null;
        if (inFlight > 0) {
          state.slow = true;
          changed();
        }
      }, slowMs);
    }
    const done = () => {
      inFlight -= 1;
      if (inFlight === 0) {
        state.busy = false;
        state.slow = false;
        if (slowTimer !== null) timers.clearTimeout(slowTimer);
        slowTimer = null;
      }
    };
    return promise.then(
      (r) => {
        done();
        return r;
      },
      (e) => {
        done();
        throw e;
      },
    );
  }

  // A failed search leaves no suggestions behind: the ones on screen were for other text.
  function showError(err, { clearList = false } = {}) {
    state.error = err?.message ? String(err.message) : String(err);
    state.status = "";
    if (clearList) {
      state.items = [];
      state.open = false;
      state.active = -1;
    }
    changed();
  }

  function applyList(result, { query, t0, autoActivate = false, sentAt = null, answeredAt = null }) {
    const suggestions = Array.isArray(result?.suggestions) ? result.suggestions : [];
    state.items = suggestions.map(toItem);
    state.active = autoActivate && state.items.length === 1 ? 0 : -1;
    state.open = state.items.length > 0;
    state.error = "";
    state.status = describeList(result, state.items.length);
    if (state.refine && result?.suggestions_prompt) state.refine.prompt = String(result.suggestions_prompt);
    changed();
    onListApplied({ query, t0, sentAt, answeredAt, count: state.items.length });
  }

  // A request issued now is current until the next keystroke or pick.
  // `onResult(result, {sentAt, answeredAt})`: the two times let the view report where a keystroke's time went.
  function issue(op, params, onResult, { generationBound = true } = {}) {
    const gen = generation;
    state.error = "";
    const sentAt = now();
    const p = track(request(op, params));
    changed();
    return p.then(
      (result) => {
        if (generationBound && gen !== generation) {
          state.dropped += 1;
          changed();
          return;
        }
        onResult(result, { sentAt, answeredAt: now() });
      },
      (err) => {
        if (generationBound && gen !== generation) {
          state.dropped += 1;
          changed();
          return;
        }
        showError(err, { clearList: op !== "format" });
      },
    );
  }

  const debounced = createDebouncer(
    (text, t0) => {
      if (state.refine) {
        const refine = state.refine;
        const op = text.trim() === "" ? "step_in" : "refine";
        const params = op === "step_in" ? { key: refine.key } : { key: refine.key, refinement: text.trim() };
        issue(op, params, (result, times) => applyList(result, { query: text, t0, autoActivate: true, ...times }));
      } else {
        issue("search", { text, country: getCountry() }, (result, times) => {
          lastSearch = { query: text, result };
          applyList(result, { query: text, t0, ...times });
        });
      }
    },
    debounceMs,
    timers,
  );

  function input(text, t0 = now()) {
    generation += 1;
    state.query = String(text ?? "");
    state.active = -1;
    if (state.chosen && state.query.trim() !== state.chosen) {
      state.chosen = "";
      onChoiceDropped();
    }
    if (state.query.trim() === "" && !state.refine) {
      debounced.cancel();
      state.items = [];
      state.open = false;
      state.status = "";
      state.error = "";
      changed();
      return;
    }
    changed();
    debounced.call(state.query, t0);
  }

  function setQuery(text) {
    state.query = text;
    state.inputRevision += 1;
  }

  function enterRefine(item) {
    generation += 1;
    debounced.cancel();
    if (!state.refine) lastSearch = lastSearch ?? { query: state.query, result: null };
    state.refine = { key: item.key, text: item.text, kind: item.kind, prompt: REFINE_PROMPT[item.kind] };
    setQuery("");
    state.items = [];
    state.open = false;
    state.active = -1;
    state.status = `${state.refine.prompt}: ${item.text}`;
    changed();
    if (item.kind !== "range") {
      // A building or street can be listed at once; a range can only be refined by the number typed.
      issue("step_in", { key: item.key }, (result) => applyList(result, { query: "", t0: now(), autoActivate: true }));
    }
  }

  function leaveRefine() {
    generation += 1;
    debounced.cancel();
    state.refine = null;
    state.error = "";
    if (lastSearch) {
      setQuery(lastSearch.query);
      if (lastSearch.result) {
        applyList(lastSearch.result, { query: lastSearch.query, t0: now() });
        state.open = false; // restored quietly; ArrowDown reopens
        changed();
        return;
      }
    }
    state.items = [];
    state.open = false;
    state.status = "";
    changed();
  }

  // The kernel sets `.value` whatever happens here; the box only takes the address's text if the user has not
  // typed since picking it. If they have, the pick's address names other text: the choice is dropped.
  function format(item) {
    generation += 1;
    const gen = generation;
    const pending = {};
    pendingFormat = pending;
    debounced.cancel();
    state.open = false;
    state.active = -1;
    state.status = `Formatting ${item.text}…`;
    issue(
      "format",
      { key: item.key },
      (result) => {
        const line = singleLine(result?.address) || item.text;
        if (gen === generation) {
          state.chosen = line;
          state.refine = null;
          state.items = [];
          setQuery(line);
          state.status = `Address chosen: ${line}`;
        } else {
          state.chosen = "";
          onChoiceDropped();
        }
        changed();
      },
      { generationBound: false },
    ).finally(() => {
      if (pendingFormat === pending) pendingFormat = null;
    });
  }

  function pick(index) {
    const item = state.items[index];
    if (!item) return;
    if (item.kind === "final") format(item);
    else enterRefine(item);
  }

  function key(k, mods = {}) {
    const cmd = keyCommand(
      k,
      {
        open: state.open,
        active: state.active,
        count: state.items.length,
        hasText: state.query !== "",
        refining: state.refine !== null,
        chosen: pendingFormat !== null || (state.chosen !== "" && state.query.trim() === state.chosen),
      },
      mods,
    );
    if (!cmd) return null;
    switch (cmd.type) {
      case "open":
        state.open = true;
        state.active = cmd.index;
        break;
      case "move":
        state.active = cmd.index;
        break;
      case "pick":
        pick(cmd.index);
        return cmd;
      case "submit":
        // Enter in refine mode with nothing highlighted: refine now instead of waiting for the debounce.
        debounced.cancel();
        generation += 1;
        debounced.call(state.query, now());
        return cmd;
      case "close":
        state.open = false;
        state.active = -1;
        break;
      case "leave":
        leaveRefine();
        return cmd;
      case "clear":
        input("");
        setQuery("");
        break;
    }
    changed();
    return cmd;
  }

  function hover(index) {
    if (index >= 0 && index < state.items.length && index !== state.active) {
      state.active = index;
      changed();
    }
  }

  function close() {
    if (state.open) {
      state.open = false;
      state.active = -1;
      changed();
    }
  }

  /** The country changed: answers for the old country are stale, and the current text is searched again. */
  function countryChanged() {
    if (state.refine) {
      state.refine = null;
      lastSearch = null;
    }
    if (state.query.trim() !== "") input(state.query);
    else {
      generation += 1;
      changed();
    }
  }

  function dispose() {
    debounced.cancel();
    generation += 1;
    if (slowTimer !== null) timers.clearTimeout(slowTimer);
    slowTimer = null;
  }

  /**
   * The kernel set `.value` (a cell's `w.value = ...` or `w.select(key)`, or the answer to a pick): the address
   * becomes the choice, and its text fills the box unless it already names it. An empty value drops the choice.
   */
  function valueSet(address) {
    if (pendingFormat !== null) return; // the value of a pick in flight: its answer decides (see format)
    const line = singleLine(address);
    if (line === state.chosen) return;
    state.chosen = line;
    if (line && !state.refine) {
      generation += 1;
      debounced.cancel();
      setQuery(line);
      state.items = [];
      state.open = false;
      state.active = -1;
      state.error = "";
      state.status = `Address chosen: ${line}`;
    }
    changed();
  }

  return { state, input, key, pick, hover, close, leaveRefine, countryChanged, valueSet, dispose };
}

// ---------------------------------------------------------------------------------------------------------------
// View

let instanceCounter = 0;

function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

/** Run `fn` after the browser has painted the current frame (rAF, then a task). */
function afterPaint(fn) {
  if (typeof requestAnimationFrame !== "function") return void setTimeout(fn, 0);
  requestAnimationFrame(() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      ch.port1.close();
      fn();
    };
    ch.port2.postMessage(0);
  });
}

const LINE_LABELS = {
  address_line_1: "Line 1",
  address_line_2: "Line 2",
  address_line_3: "Line 3",
  locality: "Locality",
  region: "Region",
  postal_code: "Postal code",
  country: "Country",
};

function render({ model, el }) {
  const uid = `dqkit-ac-${++instanceCounter}-${Math.random().toString(36).slice(2, 7)}`;
  const ids = { input: `${uid}-input`, list: `${uid}-list`, status: `${uid}-status`, label: `${uid}-label` };

  const label = h("label", { class: "dqkit-ac__label", for: ids.input, id: ids.label, text: "Address" });
  const country = h("select", { class: "dqkit-ac__country", "aria-label": "Country" });
  const chip = h("span", { class: "dqkit-ac__chip", hidden: true });
  const chipText = h("span", { class: "dqkit-ac__chip-text" });
  const chipClose = h("button", {
    type: "button",
    class: "dqkit-ac__chip-close",
    "aria-label": "Back to the search results",
    text: "×",
  });
  chip.append(chipText, chipClose);
  const input = h("input", {
    id: ids.input,
    class: "dqkit-ac__input",
    type: "text",
    role: "combobox",
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    "aria-autocomplete": "list",
    "aria-expanded": "false",
    "aria-controls": ids.list,
    "aria-describedby": ids.status,
  });
  const spinner = h("span", { class: "dqkit-ac__spinner", "aria-hidden": "true" });
  const listbox = h("ul", { id: ids.list, class: "dqkit-ac__list", role: "listbox", "aria-labelledby": ids.label, hidden: true });
  const status = h("div", { id: ids.status, class: "dqkit-ac__status", role: "status", "aria-live": "polite" });
  const error = h("div", { class: "dqkit-ac__error", role: "alert" });
  const addressBox = h("div", { class: "dqkit-ac__address", role: "group", "aria-label": "Chosen address", hidden: true });
  const notice = h("div", { class: "dqkit-ac__notice", role: "note", hidden: true });
  const reference = h("div", { class: "dqkit-ac__reference", role: "note", hidden: true });
  const root = h(
    "div",
    { class: "dqkit-ac" },
    notice,
    reference,
    h("div", { class: "dqkit-ac__bar" }, label, country),
    h("div", { class: "dqkit-ac__field" }, chip, input, spinner),
    listbox,
    status,
    error,
    addressBox,
  );
  el.append(root);

  const channel = createChannel((msg) => model.send(msg), { timeoutMs: Number(model.get("timeout_ms")) || 20000 });
  const onCustom = (msg) => channel.receive(msg);
  model.on("msg:custom", onCustom);

  const controller = createController({
    request: channel.request,
    getCountry: () => model.get("country") || "USA",
    debounceMs: Number(model.get("debounce_ms") ?? 80),
    onChange: paint,
    // Text typed after a choice: the choice is withdrawn in the kernel too (`.value` is {} again).
    onChoiceDropped: () => {
      model.set("value", {});
      model.set("address_key", "");
      model.set("components", {});
      model.save_changes();
    },
    // Latency probe: one event per painted keystroke, with where the time went (cheap; nobody listens by default).
    onListApplied: ({ query, t0, sentAt, answeredAt, count }) => {
      afterPaint(() => {
        const paintedAt = performance.now();
        const detail = { query, count, ms: paintedAt - t0 };
        if (sentAt !== null && answeredAt !== null) {
          Object.assign(detail, { waitMs: sentAt - t0, kernelMs: answeredAt - sentAt, paintMs: paintedAt - answeredAt });
        }
        root.dispatchEvent(new CustomEvent("dqkit-painted", { bubbles: true, detail }));
      });
    },
    now: () => performance.now(),
  });

  let revision = -1;
  let lastKeyAt = null;

  function paint(s) {
    if (s.inputRevision !== revision) {
      revision = s.inputRevision;
      input.value = s.query;
    }
    // Listbox: rebuilt when items change, attributes patched when only the active option moves.
    if (listbox._items !== s.items) {
      listbox._items = s.items;
      listbox.replaceChildren(
        ...s.items.map((item, i) => {
          const li = h("li", {
            id: `${uid}-opt-${i}`,
            class: `dqkit-ac__option dqkit-ac__option--${item.kind}`,
            role: "option",
            "aria-selected": "false",
          });
          for (const seg of item.segments) li.append(seg.match ? h("mark", { text: seg.text }) : seg.text);
          if (item.hint) li.append(h("span", { class: "dqkit-ac__hint", text: ` ${item.hint}` }));
          li.addEventListener("mousedown", (e) => e.preventDefault()); // keep focus in the box
          li.addEventListener("click", () => {
            controller.pick(i);
            input.focus();
          });
          li.addEventListener("mousemove", () => controller.hover(i));
          return li;
        }),
      );
    }
    listbox.hidden = !s.open;
    input.setAttribute("aria-expanded", s.open ? "true" : "false");
    listbox.querySelectorAll('[aria-selected="true"]').forEach((li) => li.setAttribute("aria-selected", "false"));
    const activeEl = s.open && s.active >= 0 ? listbox.children[s.active] : null;
    if (activeEl) {
      activeEl.setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", activeEl.id);
      activeEl.scrollIntoView?.({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
    // Refine mode: the chip names the building or range; the box asks for the unit or number.
    chip.hidden = !s.refine;
    chipText.textContent = s.refine ? s.refine.text : "";
    input.placeholder = s.refine ? (s.refine.kind === "range" ? "House number…" : "Unit or number…") : model.get("placeholder") || "";
    label.textContent = s.refine ? s.refine.prompt : "Address";
    status.textContent = s.slow ? "Waiting for the kernel…" : s.status;
    error.textContent = s.error;
    error.hidden = !s.error;
    root.classList.toggle("dqkit-ac--busy", s.busy);
  }

  function paintValue() {
    const value = model.get("value") || {};
    const has = ADDRESS_LINES.some((k) => value[k]);
    addressBox.hidden = !has;
    if (!has) return addressBox.replaceChildren();
    const dl = h("dl", { class: "dqkit-ac__lines" });
    for (const k of ADDRESS_LINES) {
      const v = String(value[k] ?? "");
      dl.append(
        h("dt", { text: LINE_LABELS[k] }),
        h("dd", { class: v ? "" : "dqkit-ac__empty", "data-line": k, text: v || "—" }),
      );
    }
    const parts = componentRows(model.get("components"));
    if (!parts.length) return addressBox.replaceChildren(dl);
    const table = h("table", { class: "dqkit-ac__components", "aria-label": "Address components" });
    const body = h("tbody");
    for (const [k, v] of parts) body.append(h("tr", {}, h("th", { scope: "row", text: k }), h("td", { text: v })));
    table.append(h("caption", { text: "Components" }), body);
    addressBox.replaceChildren(dl, table);
  }

  function paintNotice() {
    const text = String(model.get("notice") || "");
    notice.textContent = text;
    notice.hidden = !text;
    // The installed reference that answers, and how old: a quiet line (the warning banner says more when shown).
    const named = String(model.get("reference") || "");
    reference.textContent = named;
    reference.hidden = !named || Boolean(text);
  }

  function paintCountries() {
    const choices = model.get("countries") || [];
    const current = model.get("country") || "USA";
    const all = choices.includes(current) ? choices : [current, ...choices];
    country.replaceChildren(...all.map((c) => h("option", { value: c, text: c, selected: c === current })));
    country.value = current;
    country.hidden = all.length < 2;
  }

  const onValue = () => paintValue();
  const onNewValue = () => {
    controller.valueSet(model.get("value"));
    paintValue();
  };
  model.on("change:components", onValue);
  model.on("change:notice", paintNotice);
  model.on("change:reference", paintNotice);
  const onCountry = () => {
    paintCountries();
    controller.countryChanged();
  };
  model.on("change:value", onNewValue);
  model.on("change:country", onCountry);
  model.on("change:countries", paintCountries);

  input.addEventListener("keydown", (e) => {
    if (e.isComposing) return;
    // Typing here is not for the notebook: plain keys stay out of JupyterLab's shortcut handling (as ipywidgets'
    // own text boxes do); combinations with Ctrl/Cmd/Alt still reach it (save, command palette).
    if (!e.ctrlKey && !e.metaKey && !e.altKey) e.stopPropagation();
    const cmd = controller.key(e.key, { altKey: e.altKey });
    if (cmd) {
      if (cmd.type !== "close" || cmd.keepFocus !== false) e.preventDefault();
    } else if (e.key.length === 1 || e.key === "Backspace" || e.key === "Delete") {
      lastKeyAt = e.timeStamp;
    }
  });
  input.addEventListener("input", () => {
    const t0 = lastKeyAt ?? performance.now();
    lastKeyAt = null;
    controller.input(input.value, t0);
  });
  input.addEventListener("blur", () => controller.close());
  chipClose.addEventListener("click", () => {
    controller.leaveRefine();
    input.focus();
  });
  country.addEventListener("change", () => {
    model.set("country", country.value);
    model.save_changes();
  });

  paintCountries();
  paintNotice();
  controller.valueSet(model.get("value")); // a value set before the view was shown names its text in the box
  paintValue();
  paint(controller.state);
  input.placeholder = model.get("placeholder") || "";

  return () => {
    controller.dispose();
    channel.dispose();
    model.off("msg:custom", onCustom);
    model.off("change:value", onNewValue);
    model.off("change:components", onValue);
    model.off("change:notice", paintNotice);
    model.off("change:reference", paintNotice);
    model.off("change:country", onCountry);
    model.off("change:countries", paintCountries);
  };
}

export default { render };

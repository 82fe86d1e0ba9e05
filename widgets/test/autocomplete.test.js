// Unit tests of the autocomplete front end's logic: `node --test widgets/test` (node 20, no npm packages).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  PROTOCOL,
  classifySuggestion,
  createChannel,
  createController,
  createDebouncer,
  describeList,
  highlightSegments,
  keyCommand,
  singleLine,
  componentRows,
  toItem,
} from "../autocomplete.js";

/** A manual clock: timers fire only when the test advances time. */
function fakeTimers() {
  let now = 0;
  let seq = 0;
  const queue = new Map();
  return {
    setTimeout(fn, ms) {
      const id = ++seq;
      queue.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(id) {
      queue.delete(id);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        let next = null;
        for (const [id, t] of queue) if (t.at <= until && (!next || t.at < next[1].at)) next = [id, t];
        if (!next) break;
        queue.delete(next[0]);
        now = next[1].at;
        next[1].fn();
      }
      now = until;
    },
    now: () => now,
    get size() {
      return queue.size;
    },
  };
}

const flush = () => new Promise((r) => setImmediate(r));

/** A fake kernel: records requests; the test answers them in any order. */
function fakeKernel() {
  const requests = [];
  const request = (op, params) =>
    new Promise((resolve, reject) => {
      requests.push({ op, params, resolve, reject });
    });
  return { requests, request };
}

const final = (text, key, matched = []) => ({
  global_address_key: key,
  text,
  matched,
  format: `https://example.invalid/format/${key}`,
  additional_attributes: [{ name: "full_address", value: "true" }],
});
const group = (text, key, flag) => ({
  global_address_key: key,
  text,
  additional_attributes: flag ? [{ name: flag, value: "true" }] : [],
});
const list = (suggestions, extra = {}) => ({
  confidence: suggestions.length ? "Multiple matches" : "No matches",
  suggestions,
  ...extra,
});

describe("highlightSegments", () => {
  it("splits text into matched and unmatched runs", () => {
    assert.deepEqual(highlightSegments("10 Main St", [[0, 2], [3, 7]]), [
      { text: "10", match: true },
      { text: " ", match: false },
      { text: "Main", match: true },
      { text: " St", match: false },
    ]);
  });
  it("merges overlapping and touching ranges, sorts them, clips out-of-range ends", () => {
    assert.deepEqual(highlightSegments("abcdef", [[4, 99], [1, 3], [2, 4], [-5, 0]]), [
      { text: "a", match: false },
      { text: "bcdef", match: true },
    ]);
  });
  it("ignores reversed, empty and malformed ranges", () => {
    assert.deepEqual(highlightSegments("abc", [[2, 1], [1, 1], ["x", 2], [1], null, [NaN, 2]]), [
      { text: "abc", match: false },
    ]);
    assert.deepEqual(highlightSegments("abc", undefined), [{ text: "abc", match: false }]);
    assert.deepEqual(highlightSegments("", [[0, 3]]), [{ text: "", match: false }]);
  });
  it("counts code points like Python, not UTF-16 units", () => {
    // "𝟙" is one code point but two UTF-16 units; the range [2, 6) is "Main" in Python indexing.
    assert.deepEqual(highlightSegments("𝟙 Main", [[2, 6]]), [
      { text: "𝟙 ", match: false },
      { text: "Main", match: true },
    ]);
  });
  it("keeps every character exactly once", () => {
    const text = "1234 Elm Street Apt 5, Springfield IL";
    const ranges = [[0, 4], [5, 8], [3, 9], [30, 60]];
    assert.equal(highlightSegments(text, ranges).map((s) => s.text).join(""), text);
  });
});

describe("classifySuggestion and toItem", () => {
  it("tells final addresses, ranges, multiples and plain groups apart", () => {
    assert.equal(classifySuggestion(final("1 A St", "k")), "final");
    assert.equal(classifySuggestion(group("2…78 Arch St [even]", "k", "unresolvable_range")), "range");
    assert.equal(classifySuggestion(group("10 Main St (12 addresses)", "k", "multiples")), "multiples");
    assert.equal(classifySuggestion(group("Main St", "k")), "group");
    assert.equal(classifySuggestion({}), "group");
    assert.equal(classifySuggestion(null), "group");
  });
  it("a range flag wins over multiples; flag values are case-insensitive", () => {
    const s = {
      global_address_key: "k",
      text: "x",
      additional_attributes: [
        { name: "multiples", value: "TRUE" },
        { name: "unresolvable_range", value: "True" },
      ],
    };
    assert.equal(classifySuggestion(s), "range");
    assert.equal(classifySuggestion({ additional_attributes: [{ name: "multiples", value: "false" }] }), "group");
  });
  it("builds paintable items", () => {
    const item = toItem(group("10 Main St", "K1", "multiples"));
    assert.equal(item.key, "K1");
    assert.equal(item.kind, "multiples");
    assert.equal(item.hint, "choose a unit");
    assert.deepEqual(item.segments, [{ text: "10 Main St", match: false }]);
  });
});

describe("describeList", () => {
  it("says No matches, too many, or the count", () => {
    assert.equal(describeList({ confidence: "No matches", suggestions: [] }, 0), "No matches");
    assert.match(describeList({ confidence: "Too many matches" }, 0), /Too many matches/);
    assert.match(describeList({ confidence: "Insufficient search terms" }, 0), /Type more/);
    assert.equal(describeList({}, 0), "No matches");
    assert.equal(describeList({ confidence: "Multiple matches" }, 1), "1 suggestion");
    assert.equal(describeList({ confidence: "Multiple matches", more_results_available: true }, 7),
      "7 suggestions, more available: type more to narrow");
  });
});

describe("singleLine", () => {
  it("joins the non-empty lines of a 7-line address", () => {
    const a = {
      address_line_1: "10 Main St",
      address_line_2: "Apt 2",
      address_line_3: "",
      locality: "Springfield",
      region: "IL",
      postal_code: "62701",
      country: "UNITED STATES OF AMERICA",
    };
    assert.equal(singleLine(a), "10 Main St, Apt 2, Springfield IL 62701, UNITED STATES OF AMERICA");
    assert.equal(singleLine(null), "");
    assert.equal(singleLine({ locality: "X" }), "X");
  });
});

describe("keyCommand", () => {
  const s = (over) => ({ open: true, active: -1, count: 3, hasText: true, refining: false, ...over });
  it("moves down and up through the list, wrapping", () => {
    assert.deepEqual(keyCommand("ArrowDown", s()), { type: "move", index: 0 });
    assert.deepEqual(keyCommand("ArrowDown", s({ active: 1 })), { type: "move", index: 2 });
    assert.deepEqual(keyCommand("ArrowDown", s({ active: 2 })), { type: "move", index: 0 });
    assert.deepEqual(keyCommand("ArrowUp", s({ active: 0 })), { type: "move", index: 2 });
    assert.deepEqual(keyCommand("ArrowUp", s({ active: -1 })), { type: "move", index: 2 });
    assert.deepEqual(keyCommand("ArrowUp", s({ active: 2 })), { type: "move", index: 1 });
  });
  it("opens a closed list with arrows, Alt+ArrowDown opens without choosing", () => {
    assert.deepEqual(keyCommand("ArrowDown", s({ open: false })), { type: "open", index: 0 });
    assert.deepEqual(keyCommand("ArrowUp", s({ open: false })), { type: "open", index: 2 });
    assert.deepEqual(keyCommand("ArrowDown", s({ open: false }), { altKey: true }), { type: "open", index: -1 });
    assert.equal(keyCommand("ArrowDown", s({ open: false, count: 0 })), null);
  });
  it("pages by five within bounds", () => {
    assert.deepEqual(keyCommand("PageDown", s({ count: 20, active: 17 })), { type: "move", index: 19 });
    assert.deepEqual(keyCommand("PageUp", s({ count: 20, active: 3 })), { type: "move", index: 0 });
    assert.equal(keyCommand("PageDown", s({ open: false })), null);
  });
  it("Enter picks the active option, only when there is one", () => {
    assert.deepEqual(keyCommand("Enter", s({ active: 1 })), { type: "pick", index: 1 });
    assert.equal(keyCommand("Enter", s({ active: -1 })), null);
    assert.equal(keyCommand("Enter", s({ open: false, active: 1 })), null);
    assert.equal(keyCommand("Enter", s({ active: 5 })), null);
    assert.deepEqual(keyCommand("Enter", s({ active: -1, refining: true })), { type: "submit" });
  });
  it("Escape closes, then leaves refine mode, then clears", () => {
    assert.deepEqual(keyCommand("Escape", s()), { type: "close" });
    assert.deepEqual(keyCommand("Escape", s({ open: false, refining: true })), { type: "leave" });
    assert.deepEqual(keyCommand("Escape", s({ open: false })), { type: "clear" });
    assert.equal(keyCommand("Escape", s({ open: false, hasText: false })), null);
    assert.deepEqual(keyCommand("Escape", s({ open: false, chosen: true })), { type: "close" });
  });
  it("Tab closes without keeping focus; other keys are the browser's", () => {
    assert.deepEqual(keyCommand("Tab", s()), { type: "close", keepFocus: false });
    assert.equal(keyCommand("Tab", s({ open: false })), null);
    for (const k of ["a", "Home", "End", "ArrowLeft", "Backspace", " "]) assert.equal(keyCommand(k, s()), null);
  });
});

describe("createDebouncer", () => {
  it("runs the first call at once and coalesces a burst into one trailing call with the newest arguments", () => {
    const t = fakeTimers();
    const calls = [];
    const d = createDebouncer((x) => calls.push([x, t.now()]), 80, t);
    d.call("1");
    assert.deepEqual(calls, [["1", 0]]);
    t.advance(30);
    d.call("12");
    t.advance(30);
    d.call("123");
    assert.equal(calls.length, 1);
    t.advance(79);
    assert.equal(calls.length, 1);
    t.advance(1);
    assert.deepEqual(calls, [["1", 0], ["123", 140]]);
  });
  it("calls spaced wider than the wait each run at once", () => {
    const t = fakeTimers();
    const calls = [];
    const d = createDebouncer((x) => calls.push([x, t.now()]), 80, t);
    for (let i = 0; i < 4; i++) {
      d.call(i);
      t.advance(120);
    }
    assert.deepEqual(calls, [[0, 0], [1, 120], [2, 240], [3, 360]]);
  });
  it("a call right after a trailing call waits for the window (bounded rate)", () => {
    const t = fakeTimers();
    const calls = [];
    const d = createDebouncer((x) => calls.push([x, t.now()]), 80, t);
    d.call("a");
    t.advance(10);
    d.call("b"); // trailing at 90
    t.advance(85);
    d.call("c"); // within the window opened at 90: trailing at 175
    t.advance(100);
    assert.deepEqual(calls, [["a", 0], ["b", 90], ["c", 175]]);
  });
  it("cancel drops the pending call", () => {
    const t = fakeTimers();
    const calls = [];
    const d = createDebouncer((x) => calls.push(x), 50, t);
    d.call(1);
    d.call(2);
    assert.equal(d.pending, true);
    d.cancel();
    t.advance(1000);
    assert.deepEqual(calls, [1]);
    d.call(3);
    assert.deepEqual(calls, [1, 3]);
  });
});

describe("createChannel", () => {
  it("sends numbered requests and settles each by the id of its answer, in any order", async () => {
    const t = fakeTimers();
    const sent = [];
    const ch = createChannel((m) => sent.push(m), { timers: t });
    const a = ch.request("search", { text: "1" });
    const b = ch.request("format", { key: "K" });
    assert.deepEqual(sent.map((m) => [m.proto, m.kind, m.op]), [
      [PROTOCOL, "request", "search"],
      [PROTOCOL, "request", "format"],
    ]);
    assert.notEqual(sent[0].id, sent[1].id);
    assert.equal(ch.inFlight, 2);
    assert.equal(ch.receive({ proto: PROTOCOL, kind: "response", id: sent[1].id, ok: true, result: "B" }), true);
    assert.equal(ch.receive({ proto: PROTOCOL, kind: "response", id: sent[0].id, ok: true, result: "A" }), true);
    assert.equal(await a, "A");
    assert.equal(await b, "B");
    assert.equal(ch.inFlight, 0);
    assert.equal(t.size, 0, "answered requests leave no timers behind");
  });
  it("turns an error answer into a rejected ChannelError with the kernel's message", async () => {
    const sent = [];
    const ch = createChannel((m) => sent.push(m), { timers: fakeTimers() });
    const p = ch.request("format", { key: "stale" });
    ch.receive({
      proto: PROTOCOL, kind: "response", id: sent[0].id, ok: false,
      error: { type: "NotFoundError", message: "404 Not Found: unknown key" },
    });
    await assert.rejects(p, (e) => e.name === "ChannelError" && e.type === "NotFoundError" && /unknown key/.test(e.message));
  });
  it("times out when the kernel does not answer, and ignores the late answer", async () => {
    const t = fakeTimers();
    const sent = [];
    const ch = createChannel((m) => sent.push(m), { timeoutMs: 5000, timers: t });
    const p = ch.request("search", { text: "x" });
    t.advance(5000);
    await assert.rejects(p, (e) => e.type === "timeout" && /No answer from the kernel in 5 s/.test(e.message));
    assert.equal(ch.receive({ proto: PROTOCOL, kind: "response", id: sent[0].id, ok: true, result: 1 }), true);
  });
  it("two views of one widget do not take each other's answers", async () => {
    const t = fakeTimers();
    const sentA = [];
    const sentB = [];
    const a = createChannel((m) => sentA.push(m), { timers: t });
    const b = createChannel((m) => sentB.push(m), { timers: t });
    const pa = a.request("search", { text: "1" });
    const pb = b.request("search", { text: "2" });
    assert.notEqual(sentA[0].id, sentB[0].id);
    const answerB = { proto: PROTOCOL, kind: "response", id: sentB[0].id, ok: true, result: "for B" };
    const answerA = { proto: PROTOCOL, kind: "response", id: sentA[0].id, ok: true, result: "for A" };
    for (const msg of [answerB, answerA]) {
      a.receive(msg); // the comm delivers every answer to every view
      b.receive(msg);
    }
    assert.equal(await pa, "for A");
    assert.equal(await pb, "for B");
  });
  it("ignores messages that are not its answers", () => {
    const ch = createChannel(() => {}, { timers: fakeTimers() });
    assert.equal(ch.receive(null), false);
    assert.equal(ch.receive({ method: "update" }), false);
    assert.equal(ch.receive({ proto: "other", kind: "response", id: 1 }), false);
    assert.equal(ch.receive({ proto: PROTOCOL, kind: "request", id: 1 }), false);
  });
  it("rejects when sending throws, and on dispose", async () => {
    const t = fakeTimers();
    const broken = createChannel(() => { throw new Error("comm closed"); }, { timers: t });
    await assert.rejects(broken.request("search", {}), (e) => e.type === "send" && /comm closed/.test(e.message));
    const ch = createChannel(() => {}, { timers: t });
    const p = ch.request("search", {});
    ch.dispose();
    await assert.rejects(p, (e) => e.type === "closed");
    assert.equal(t.size, 0);
  });
});

/** A controller on a fake kernel and a fake clock, recording what it paints. */
function setup(opts = {}) {
  const t = fakeTimers();
  const k = fakeKernel();
  const applied = [];
  let paints = 0;
  const c = createController({
    request: k.request,
    timers: t,
    now: t.now,
    debounceMs: 80,
    onChange: () => (paints += 1),
    onListApplied: (info) => applied.push(info),
    ...opts,
  });
  return { c, t, k, applied, paints: () => paints };
}

describe("controller: typing and stale answers", () => {
  it("searches at once for a keystroke and paints the answer", async () => {
    const { c, t, k, applied } = setup({ getCountry: () => "USA" });
    t.advance(5);
    c.input("10 Ma", 5);
    assert.equal(k.requests.length, 1);
    assert.deepEqual(k.requests[0], { ...k.requests[0], op: "search", params: { text: "10 Ma", country: "USA" } });
    assert.equal(c.state.busy, true);
    t.advance(7);
    k.requests[0].resolve(list([final("10 Main St", "A", [[0, 5]]), group("10 Maple Ave", "B", "multiples")]));
    await flush();
    assert.equal(c.state.open, true);
    assert.equal(c.state.busy, false);
    assert.equal(c.state.active, -1, "manual selection: nothing is chosen until an arrow key");
    assert.deepEqual(c.state.items.map((i) => [i.key, i.kind]), [["A", "final"], ["B", "multiples"]]);
    assert.equal(c.state.items[0].segments[0].text, "10 Ma");
    assert.equal(c.state.status, "2 suggestions");
    assert.deepEqual(applied, [{ query: "10 Ma", t0: 5, sentAt: 5, answeredAt: 12, count: 2 }]);
  });

  it("drops an answer that comes after a newer keystroke, even when it arrives last", async () => {
    const { c, t, k, applied } = setup();
    c.input("10");
    t.advance(100);
    c.input("10 M");
    assert.equal(k.requests.length, 2);
    k.requests[1].resolve(list([final("10 Main St", "NEW")]));
    await flush();
    k.requests[0].resolve(list([final("10 Oak St", "OLD")]));
    await flush();
    assert.deepEqual(c.state.items.map((i) => i.key), ["NEW"]);
    assert.equal(c.state.dropped, 1);
    assert.deepEqual(applied.map((a) => a.query), ["10 M"]);
  });

  it("drops an answer whose keystroke was followed by one still waiting in the debounce", async () => {
    const { c, t, k } = setup();
    c.input("1");
    t.advance(20);
    c.input("12"); // coalesced: not sent yet
    assert.equal(k.requests.length, 1);
    k.requests[0].resolve(list([final("1 A St", "X")]));
    await flush();
    assert.equal(c.state.items.length, 0, "the answer for '1' is older than the keystroke '12'");
    t.advance(80);
    assert.equal(k.requests.length, 2);
    assert.equal(k.requests[1].params.text, "12");
  });

  it("a burst of keystrokes costs two requests, the last with the whole text", () => {
    const { c, t, k } = setup();
    for (const text of ["1", "12", "123", "1234", "1234 "]) {
      c.input(text);
      t.advance(10);
    }
    t.advance(200);
    assert.deepEqual(k.requests.map((r) => r.params.text), ["1", "1234 "]);
  });

  it("clearing the box cancels the pending search and closes the list", async () => {
    const { c, t, k } = setup();
    c.input("10");
    k.requests[0].resolve(list([final("10 A St", "A")]));
    await flush();
    t.advance(10);
    c.input("10 B");
    c.input("");
    t.advance(500);
    assert.equal(k.requests.length, 1);
    assert.equal(c.state.open, false);
    assert.deepEqual(c.state.items, []);
  });

  it("shows No matches and kernel errors to the user; a later answer clears the error", async () => {
    const { c, t, k } = setup();
    c.input("zzz");
    k.requests[0].resolve({ confidence: "No matches", suggestions: [] });
    await flush();
    assert.equal(c.state.status, "No matches");
    assert.equal(c.state.open, false);
    t.advance(100);
    c.input("zzzz");
    k.requests[1].reject(Object.assign(new Error("503 Service Unavailable"), { type: "ServerError" }));
    await flush();
    assert.equal(c.state.error, "503 Service Unavailable");
    t.advance(100);
    c.input("10");
    k.requests[2].resolve(list([final("10 A St", "A")]));
    await flush();
    assert.equal(c.state.error, "");
  });

  it("a failed search closes the suggestions of the previous text", async () => {
    const { c, t, k } = setup();
    c.input("10");
    k.requests[0].resolve(list([final("10 A St", "A")]));
    await flush();
    assert.equal(c.state.open, true);
    t.advance(100);
    c.input("10 A");
    k.requests[1].reject(new Error("400 Bad Request: no reference data for country 'CAN'"));
    await flush();
    assert.match(c.state.error, /no reference data/);
    assert.equal(c.state.open, false);
    assert.deepEqual(c.state.items, []);
  });

  it("an error answering an old keystroke is dropped like any stale answer", async () => {
    const { c, t, k } = setup();
    c.input("1");
    t.advance(100);
    c.input("10");
    k.requests[0].reject(new Error("boom"));
    await flush();
    assert.equal(c.state.error, "");
  });

  it("says it is waiting when the kernel is slow", async () => {
    const { c, t, k } = setup({ slowMs: 1000 });
    c.input("10");
    t.advance(999);
    assert.equal(c.state.slow, false);
    t.advance(1);
    assert.equal(c.state.slow, true);
    k.requests[0].resolve(list([]));
    await flush();
    assert.equal(c.state.slow, false);
  });

  it("searches the country the getter gives, and again when it changes", () => {
    let country = "USA";
    const { c, t, k } = setup({ getCountry: () => country });
    c.input("10 Main");
    t.advance(100);
    country = "CAN";
    c.countryChanged();
    assert.deepEqual(k.requests.map((r) => r.params.country), ["USA", "CAN"]);
  });
});

describe("controller: keyboard and picking", () => {
  async function withList(suggestions) {
    const env = setup();
    env.c.input("10");
    env.k.requests[0].resolve(list(suggestions));
    await flush();
    return env;
  }

  it("arrows move the active option; Enter on a final address formats it", async () => {
    const { c, k } = await withList([final("10 A St", "A"), final("10 B St", "B")]);
    assert.equal(c.key("ArrowDown").type, "move");
    assert.equal(c.key("ArrowDown").type, "move");
    assert.equal(c.state.active, 1);
    c.key("Enter");
    assert.equal(c.state.open, false);
    const req = k.requests.at(-1);
    assert.deepEqual([req.op, req.params], ["format", { key: "B" }]);
    req.resolve({
      global_address_key: "B",
      address: { address_line_1: "10 B St", locality: "Town", region: "ST", postal_code: "00001", country: "USA" },
    });
    await flush();
    assert.equal(c.state.query, "10 B St, Town ST 00001, USA");
    assert.equal(c.state.chosen, "10 B St, Town ST 00001, USA");
    assert.match(c.state.status, /^Address chosen/);
  });

  it("Escape closes the list; a second Escape clears the box", async () => {
    const { c } = await withList([final("10 A St", "A")]);
    const rev = c.state.inputRevision;
    c.key("Escape");
    assert.equal(c.state.open, false);
    assert.equal(c.state.query, "10");
    c.key("Escape");
    assert.equal(c.state.query, "");
    assert.ok(c.state.inputRevision > rev, "the view is told to empty the box");
  });

  it("Escape after picking closes the list and keeps the choice (issue 29)", async () => {
    let dropped = 0;
    const env = setup({ onChoiceDropped: () => (dropped += 1) });
    env.c.input("10");
    env.k.requests[0].resolve(list([final("10 A St", "A"), final("10 B St", "B")]));
    await flush();
    const { c, k } = env;
    c.key("ArrowDown");
    c.key("Enter");
    // Escape while the pick is being formatted: the pick goes on.
    assert.equal(c.key("Escape").type, "close");
    k.requests.at(-1).resolve({
      global_address_key: "A",
      address: { address_line_1: "10 A St", locality: "Town", region: "ST", postal_code: "00001", country: "USA" },
    });
    await flush();
    const line = "10 A St, Town ST 00001, USA";
    assert.equal(c.state.chosen, line);
    // Escape after the address is shown: the list stays closed, the box and the choice stay.
    assert.equal(c.key("Escape").type, "close");
    assert.equal(c.key("Escape").type, "close");
    assert.equal(c.state.open, false);
    assert.equal(c.state.query, line);
    assert.equal(c.state.chosen, line);
    assert.equal(dropped, 0);
    // Typing other text still drops the choice; Escape then clears as before.
    c.input("10 A");
    assert.equal(dropped, 1);
    c.key("Escape");
    c.key("Escape");
    assert.equal(c.state.query, "");
  });

  it("keys the widget does not handle return null so the browser handles them", async () => {
    const { c } = await withList([final("10 A St", "A")]);
    assert.equal(c.key("a"), null);
    assert.equal(c.key("Home"), null);
  });

  it("picking with the mouse works like Enter", async () => {
    const { c, k } = await withList([final("10 A St", "A"), final("10 B St", "B")]);
    c.hover(1);
    assert.equal(c.state.active, 1);
    c.pick(0);
    assert.deepEqual(k.requests.at(-1).params, { key: "A" });
  });

  it("the format answer does not overwrite text typed after the pick, and the pick is dropped", async () => {
    let dropped = 0;
    const env = setup({ onChoiceDropped: () => (dropped += 1) });
    env.c.input("10");
    env.k.requests[0].resolve(list([final("10 A St", "A")]));
    await flush();
    const { c, t, k } = env;
    c.pick(0);
    const fmt = k.requests.at(-1);
    c.valueSet({ address_line_1: "10 A St" }); // the kernel's value arrives before the answer: the answer decides
    t.advance(100);
    c.input("20 B");
    fmt.resolve({ address: { address_line_1: "10 A St" } });
    await flush();
    assert.equal(c.state.query, "20 B");
    assert.equal(c.state.chosen, "", "an address is never kept for text that does not name it");
    assert.equal(dropped, 1, "the view clears .value");
  });

  it("a format error is shown", async () => {
    const { c, k } = await withList([final("10 A St", "A")]);
    c.pick(0);
    k.requests.at(-1).reject(new Error("404 Not Found: unknown address key"));
    await flush();
    assert.match(c.state.error, /unknown address key/);
  });
});

describe("controller: a value set by the kernel", () => {
  const VALUE = { address_line_1: "10 Main St", locality: "Town", region: "ST", postal_code: "00001", country: "USA" };
  const LINE = "10 Main St, Town ST 00001, USA";

  it("names its address in the box, and typing other text drops it before any No matches", async () => {
    let dropped = 0;
    const { c, t, k } = setup({ onChoiceDropped: () => (dropped += 1) });
    const rev = c.state.inputRevision;
    c.valueSet(VALUE); // a cell ran w.select(key) or set w.value
    assert.equal(c.state.query, LINE);
    assert.ok(c.state.inputRevision > rev, "the view is told to show the address's text");
    assert.equal(c.state.chosen, LINE);
    t.advance(100);
    c.input("zzz");
    assert.equal(dropped, 1, "the old address is withdrawn as soon as other text is typed");
    assert.equal(c.state.chosen, "");
    k.requests.at(-1).resolve({ confidence: "No matches", suggestions: [] });
    await flush();
    assert.equal(c.state.status, "No matches");
    c.input("zzzz");
    assert.equal(dropped, 1, "dropped once");
  });

  it("typing the chosen address's own text keeps it; an empty value drops it quietly", () => {
    let dropped = 0;
    const { c } = setup({ onChoiceDropped: () => (dropped += 1) });
    c.valueSet(VALUE);
    c.input(`${LINE} `);
    assert.equal(dropped, 0);
    assert.equal(c.state.chosen, LINE);
    c.valueSet({});
    assert.equal(c.state.chosen, "");
    assert.equal(dropped, 0, "the kernel cleared it: nothing to tell it");
  });
});

describe("controller: refining groups", () => {
  async function withList(suggestions) {
    const env = setup();
    env.c.input("2 Arch");
    env.k.requests[0].resolve(list(suggestions));
    await flush();
    return env;
  }

  it("picking a range asks for the number, refines as the user types, and formats the single answer", async () => {
    const { c, t, k } = await withList([group("2…78 Arch St [even]", "R", "unresolvable_range")]);
    c.key("ArrowDown");
    c.key("Enter");
    assert.equal(k.requests.length, 1, "a range is not listed: it waits for a number");
    assert.equal(c.state.refine.key, "R");
    assert.match(c.state.refine.prompt, /house number/);
    assert.equal(c.state.query, "");
    t.advance(100);
    c.input("24");
    const r = k.requests.at(-1);
    assert.deepEqual([r.op, r.params], ["refine", { key: "R", refinement: "24" }]);
    r.resolve({ confidence: "Verified match", suggestions: [final("24 Arch St", "F24")] });
    await flush();
    assert.equal(c.state.active, 0, "a single answer is pre-selected so Enter takes it");
    c.key("Enter");
    assert.deepEqual(k.requests.at(-1).params, { key: "F24" });
    k.requests.at(-1).resolve({ address: { address_line_1: "24 Arch St" } });
    await flush();
    assert.equal(c.state.refine, null);
    assert.equal(c.state.query, "24 Arch St");
  });

  it("picking multiples lists them at once; Enter with nothing chosen refines the typed text", async () => {
    const { c, t, k } = await withList([group("10 Main St (4 addresses)", "M", "multiples")]);
    c.pick(0);
    const step = k.requests.at(-1);
    assert.deepEqual([step.op, step.params], ["step_in", { key: "M" }]);
    step.resolve(list([final("10 Main St Apt 1", "U1"), final("10 Main St Apt 2", "U2")], { suggestions_prompt: "Enter apartment" }));
    await flush();
    assert.equal(c.state.items.length, 2);
    assert.equal(c.state.refine.prompt, "Enter apartment");
    t.advance(100);
    c.input("2");
    c.key("Escape"); // close the list...
    c.key("Enter"); // ...then Enter refines now
    const last = k.requests.at(-1);
    assert.deepEqual([last.op, last.params], ["refine", { key: "M", refinement: "2" }]);
  });

  it("No matches while refining is shown and refine mode stays", async () => {
    const { c, t, k } = await withList([group("2…78 Arch St [even]", "R", "unresolvable_range")]);
    c.pick(0);
    t.advance(100);
    c.input("99");
    k.requests.at(-1).resolve({ confidence: "No matches", suggestions: [] });
    await flush();
    assert.equal(c.state.status, "No matches");
    assert.equal(c.state.refine.key, "R");
  });

  it("Escape leaves refine mode and brings back the search text and its suggestions", async () => {
    const { c } = await withList([group("2…78 Arch St [even]", "R", "unresolvable_range"), final("2 Arch Rd", "F")]);
    c.pick(0);
    c.key("Escape");
    assert.equal(c.state.refine, null);
    assert.equal(c.state.query, "2 Arch");
    assert.equal(c.state.items.length, 2);
    assert.equal(c.state.open, false);
    c.key("ArrowDown");
    assert.equal(c.state.open, true);
  });

  it("a step-in answer arriving after the user left refine mode is dropped", async () => {
    const { c, k } = await withList([group("10 Main St", "M", "multiples")]);
    c.pick(0);
    const step = k.requests.at(-1);
    c.leaveRefine();
    step.resolve(list([final("10 Main St Apt 1", "U1")]));
    await flush();
    assert.equal(c.state.refine, null);
    assert.ok(!c.state.items.some((i) => i.key === "U1"));
  });

  it("a group inside a group refines the inner one", async () => {
    const { c, k } = await withList([group("Main St", "S")]);
    c.pick(0);
    k.requests.at(-1).resolve(list([group("10 Main St", "B", "multiples")]));
    await flush();
    c.key("Enter"); // the single answer is pre-selected
    assert.equal(c.state.refine.key, "B");
    assert.deepEqual(k.requests.at(-1).params, { key: "B" });
  });
});

describe("componentRows", () => {
  it("lists flat components with readable names and leaves empty ones out", () => {
    assert.deepEqual(componentRows({ building_number: "1", street_name: "MOORE", sub_building: "" }), [
      ["building number", "1"],
      ["street name", "MOORE"],
    ]);
  });
  it("flattens the vendor's nested blocks", () => {
    assert.deepEqual(componentRows({ street: { full_name: "Moore St", name: "Moore" }, postal_code: { full_name: "47586" } }), [
      ["street.full name", "Moore St"],
      ["street.name", "Moore"],
      ["postal code.full name", "47586"],
    ]);
  });
  it("is empty when the answer has no components", () => {
    assert.deepEqual(componentRows(undefined), []);
    assert.deepEqual(componentRows(null), []);
    assert.deepEqual(componentRows({}), []);
  });
});

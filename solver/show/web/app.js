// The Texas 42 table: loads a hand, steps through its plays and shows what the
// service says about each position. Every figure comes from texas42.v1.HintService
// over Connect (HTTP/JSON); a pasted document is read and checked by the server
// (POST /document, the reader `t42` uses), which answers it in canonical form with
// the requests to send. The page only draws.
"use strict";

(() => {
  const {
    SEATS, SEAT_WORD, HAND_FIELD, SEAT_ENUM, SEAT_OF_ENUM, TRUMP_OF_ENUM, rpc, post, dominoGeometry,
    $, el, escapeHtml, toBase64Url, fromBase64Url,
  } = window.T42Common;

  /** Hooks for other views; `hintLabels(position, seat)` -> labels (seat view). */
  const T42 = (window.T42 = window.T42 || {});
  // The seat view's hint: a modest, seeded sample, so that it is quick and repeatable.
  T42.hintOptions = T42.hintOptions || { deals: 50, seed: 42 };
  // Seat view labels each legal tile of the chosen seat, when it is to move, with what
  // this async function of (proto JSON position, seat letter) returns: {tile: text}, or
  // {labels: {tile: text}, best: [tiles], note: text}. The default asks the Hint RPC.
  T42.hintLabels = T42.hintLabels || hintFigures;

  // doc: the canonical SPEC JSON document; position, deal: its Position (every play)
  // and SolveDeal request as proto JSON (both from the server's reader).
  const state = {
    doc: null, position: null, deal: null, plays: [], recordLength: 0, step: 0,
    solution: null, analysis: null,
    mode: "open", viewSeat: "N", request: 0, diverged: null,
    hint: null, hintRequest: 0, hintError: false, dealShown: false,
  };

  // ---------------------------------------------------------------- service

  /**
   * The server's reading of a pasted document (text as pasted: a position or hand record,
   * of JSON Lines the first line): {document, position, record, deal}, or a ServiceError
   * naming the field and the reason, as `t42` would.
   */
  const readDocument = (text) => post("/document", text, "text/plain; charset=utf-8");

  // ----------------------------------------------------- the position

  /** The proto JSON `Position` of the loaded document after the given plays. */
  const positionAt = (plays, position = state.position) => ({ ...position, plays });

  // ------------------------------------------------------------- the game

  const isNello = () => state.doc.contract?.trump === "nello";
  const partner = (seat) => SEATS[(SEATS.indexOf(seat) + 2) % 4];

  /** Seats that play (three-player Moon has no West; nello's partner sits out). */
  function activeSeats() {
    const seats = SEATS.filter((s) => state.doc.hands && state.doc.hands[s]);
    return isNello() ? seats.filter((s) => s !== partner(state.doc.contract.declarer)) : seats;
  }

  function ownerOf(tile) {
    for (const seat of SEATS) {
      if ((state.doc.hands?.[seat] || []).includes(tile)) return seat;
    }
    return null;
  }

  /** Tricks of the plays so far: [{plays: [{seat, tile}], winner}] (winner null when unknown). */
  function tricks(step) {
    const size = activeSeats().length;
    const out = [];
    // The service names the taker of every trick completed at the current step.
    const takers = (state.solution?.trickWinners || []).map((s) => SEAT_OF_ENUM[s]);
    for (let i = 0; i < step; i += size) {
      const plays = state.plays.slice(i, Math.min(i + size, step))
        .map((tile) => ({ tile, seat: ownerOf(tile) }));
      out.push({ plays, winner: plays.length === size ? takers[i / size] || null : null });
    }
    return out;
  }

  function dominoSvg(tile, { horizontal = false, size = 32, label = true } = {}) {
    const half = size;
    const { w, h, line, halves } = dominoGeometry(tile, half, horizontal);
    const parts = [
      `<svg class="domino" data-tile="${tile}" width="${w + 2}" height="${h + 2}" viewBox="-1 -1 ${w + 2} ${h + 2}" ${label ? `role="img" aria-label="${tile}"` : 'aria-hidden="true"'}>`,
      `<rect class="face" x="0" y="0" width="${w}" height="${h}" rx="${half * 0.14}" fill="#fbf7ea" stroke="#2b2b2b" stroke-width="1"/>`,
      `<line x1="${line.x1}" y1="${line.y1}" x2="${line.x2}" y2="${line.y2}" stroke="#2b2b2b" stroke-width="1.2"/>`,
    ];
    for (const { pips, centres } of halves) {
      parts.push(`<g class="half" data-pips="${pips}">`);
      for (const [cx, cy] of centres) {
        parts.push(`<circle class="pip" cx="${cx}" cy="${cy}" r="${(half * 0.085).toFixed(1)}" fill="#1f1f1f"/>`);
      }
      parts.push("</g>");
    }
    parts.push("</svg>");
    return parts.join("");
  }

  const units = (unit, count) => (count === 1 ? unit.slice(0, -1) : unit);

  function remainingTiles(seat, step) {
    const played = new Set(state.plays.slice(0, step));
    return (state.doc.hands[seat] || []).filter((t) => !played.has(t))
      .sort((a, b) => b.localeCompare(a));
  }

  /** The View message of what `seat` knows at a proto JSON position. */
  function viewOf(position, seat) {
    const field = HAND_FIELD[seat];
    const view = {
      seat: SEAT_ENUM[seat], game: position.game, hands: { [field]: position.hands[field] },
      contract: position.contract, plays: position.plays,
    };
    if (position.game === "GAME_MOON") view.players = Object.keys(position.hands).length;
    // Only the Moon declarer saw the widow and what it discarded.
    if (position.widow && position.contract?.declarer === SEAT_ENUM[seat]) {
      Object.assign(view, { widow: position.widow, discard: position.discard });
    }
    return view;
  }

  const percent = (p) => `${Math.round(p * 100)}%`;

  /** The Hint RPC for the seat's view: each legal tile's P(make) and mean, the best tiles. */
  async function hintFigures(position, seat) {
    const h = await rpc("Hint", { view: viewOf(position, seat), ...T42.hintOptions });
    const labels = Object.fromEntries((h.moves || []).map((m) =>
      [m.tile, `${percent(m.pMake ?? 0)}\n${(m.mean ?? 0).toFixed(1)}`]));
    const unit = h.unit === "VALUE_UNIT_TRICKS" ? "tricks" : "points";
    const count = Number(h.count ?? 0).toLocaleString("en-US");
    const deals = h.method === "HINT_METHOD_ENUMERATED" ? `all ${count} consistent deals`
      : `${Number(h.deals ?? 0).toLocaleString("en-US")} of ${count} consistent deals, sampled (seed ${h.seed ?? 0})`;
    return {
      labels, best: h.best || [],
      note: `Hint: each tile's P(make) and mean ${unit} over ${deals}`,
    };
  }

  /**
   * The hint of the position shown when the seat in view is to move: the answer when it
   * is in, else null, asking for it (the table is drawn again when it comes).
   */
  function hintFor(position, seat) {
    const key = JSON.stringify([position, seat, T42.hintOptions]);
    const hook = T42.hintLabels;
    if (typeof hook !== "function") return null;
    if (state.hint && state.hint.key === key && state.hint.hook === hook) return state.hint.result;
    const token = ++state.hintRequest;
    state.hint = { key, hook, result: null };
    document.body.dataset.hint = "pending";
    Promise.resolve().then(() => hook(position, seat)).then((answer) => {
      if (token !== state.hintRequest) return; // the table moved on
      const rich = answer && typeof answer.labels === "object";
      state.hint.result = rich ? answer : { labels: answer || {}, best: [], note: "" };
      if (state.hintError) clearError();
      state.hintError = false;
      render();
    }, (err) => {
      if (token !== state.hintRequest) return;
      state.hint.result = { labels: {}, best: [], note: "", error: true };
      showError(err);
      state.hintError = true;
      render();
    });
    return null;
  }

  function render() {
    // A tile played from the keyboard: the focus goes on to the next legal tile.
    const tileFocused = document.activeElement?.classList?.contains("tile");
    const doc = state.doc;
    const step = state.step;
    const sol = state.solution || {};
    const toMove = sol.toMove ? SEAT_OF_ENUM[sol.toMove] : null;
    const value = sol.value ?? 0;
    const moves = Object.fromEntries((sol.moves || []).map((m) => [m.tile, m.value ?? 0]));
    const open = state.mode === "open";
    const active = activeSeats();
    const all = tricks(step);
    const won = Object.fromEntries(SEATS.map((s) => [s, 0]));
    all.forEach((t) => { if (t.winner) won[t.winner] += 1; });
    let hint = null;
    if (!open && toMove === state.viewSeat) {
      hint = hintFor(positionAt(state.plays.slice(0, step)), state.viewSeat);
    } else {
      state.hintRequest++; // an answer on its way is for another position
      state.hint = null;
    }
    document.body.dataset.hint = !state.hint ? "none" : !hint ? "pending" : hint.error ? "error" : "shown";
    const labels = hint?.labels || null;
    const hintBest = new Set(hint?.best || []);

    $("empty").hidden = true;
    const c = doc.contract || {};
    const game = doc.game === "moon" ? "Moon" : "Texas 42";
    // An id is free data: a string as it is, anything else as its JSON.
    const id = doc.id == null ? null : typeof doc.id === "string" ? doc.id : JSON.stringify(doc.id);
    const who = doc.meta?.players?.[c.declarer];
    $("contract").innerHTML =
      `<b>${escapeHtml(c.declarer)} bids ${escapeHtml(c.bid)}, ${escapeHtml(c.trump)}</b><br>` +
      `${game}${c.kind && c.kind !== "standard" ? ", " + escapeHtml(c.kind) : ""}` +
      `${who ? " &middot; declarer " + escapeHtml(who) : ""}` +
      `${id != null ? "<br>hand " + escapeHtml(id) : ""}` +
      `${doc.widow != null ? `<br>widow ${escapeHtml(doc.widow)}, discard ${escapeHtml(doc.discard)}` : ""}`;

    for (const seat of SEATS) {
      const box = document.querySelector(`.seat[data-seat="${seat}"]`);
      box.innerHTML = "";
      if (!doc.hands?.[seat]) continue;
      const playing = active.includes(seat);
      box.classList.toggle("out", !playing);
      const player = doc.meta?.players?.[seat];
      const name = el("div", { class: "name" + (seat === toMove ? " to-move" : "") },
        `${SEAT_WORD[seat]}${seat === c.declarer ? " (declarer)" : ""}${player ? " &middot; " + escapeHtml(player) : ""}${playing ? "" : " &middot; sits out"}`);
      if (won[seat]) name.append(el("span", { class: "won", title: `${won[seat]} tricks` }, "<i></i>".repeat(won[seat])));
      const hand = el("div", { class: "hand" });
      const tiles = playing ? remainingTiles(seat, step) : doc.hands[seat] || [];
      const shown = open || seat === state.viewSeat;
      for (const tile of tiles) {
        if (!shown) {
          hand.append(el("div", { class: "tile hidden" }, '<div class="back"></div>'));
          continue;
        }
        const legal = seat === toMove && tile in moves;
        const best = legal && (open ? moves[tile] === value : hintBest.has(tile));
        // A legal tile is a button: Tab reaches it, Enter or Space plays it.
        const figure = legal && open ? `, value ${moves[tile]}` : legal && labels?.[tile] != null
          ? `, ${String(labels[tile]).replace(/\s+/g, " ")}` : "";
        const node = el(legal ? "button" : "div", {
          class: "tile" + (legal ? " legal" : "") + (best ? " best" : "") +
            (seat === toMove && !legal ? " dim" : ""),
          "data-tile": tile, "data-seat": seat,
          type: legal ? "button" : null,
          "aria-label": legal ? `Play ${tile}${figure}${best ? " (best)" : ""}` : null,
        }, dominoSvg(tile, { label: !legal }));
        if (legal && open) node.append(el("span", { class: "badge", "data-tile": tile }, String(moves[tile])));
        if (legal && !open && labels && labels[tile] != null) {
          node.append(el("span", { class: "badge hint", "data-tile": tile }, escapeHtml(labels[tile])));
        }
        if (legal) node.addEventListener("click", () => playTile(tile));
        hand.append(node);
      }
      box.append(name, hand);
    }

    // The trick on the table; at a trick's end, the trick just won (and by whom).
    const trickBox = $("trick");
    trickBox.innerHTML = "";
    const current = all.length ? all[all.length - 1] : null;
    if (current) {
      for (const { seat, tile } of current.plays) {
        const node = el("div", { class: `played ${seat}`, "data-tile": tile },
          dominoSvg(tile, { horizontal: seat === "E" || seat === "W", size: 30 }));
        const note = current.winner === seat ? `${seat} wins` : seat;
        node.append(el("span", { class: "who" }, note));
        trickBox.append(node);
      }
    }

    const unit = game === "Moon" || isNello() ? "tricks" : "points";
    const total = active.length * 7;
    const over = step >= total && !toMove;
    let verdict = "";
    if (open) {
      verdict = `<span class="value" id="value">${value}</span> ${units(unit, value)} double dummy<br>` +
        (sol.makes ? '<span class="makes">makes</span>' : '<span class="set">is set</span>') +
        ` (bid ${escapeHtml(c.bid)})`;
    }
    verdict += `<br>${over ? "hand over" : toMove ? `${SEAT_WORD[toMove]} to play` : ""}`;
    if (!open && state.hint) {
      const note = hint ? hint.note : `Hint: scoring ${T42.hintOptions.deals} deals\u2026`;
      if (note) verdict += `<div class="hint-note" id="hint-note">${escapeHtml(note)}</div>`;
    }
    $("verdict").innerHTML = verdict;

    $("step").textContent = `play ${step} of ${state.plays.length}` +
      (state.plays.length > state.recordLength ? " (past the record)" : "");
    $("first").disabled = $("back").disabled = step === 0;
    $("forward").disabled = over || !toMove;
    $("last").disabled = step === state.plays.length;
    document.querySelectorAll("#analysis tbody tr").forEach((row) => {
      row.classList.toggle("current", Number(row.dataset.index) === step);
    });
    if (tileFocused) document.querySelector(".seat .tile.legal")?.focus();
    // In a seat view nothing computed from the hidden hands is shown.
    $("analysis-panel").hidden = !open || !state.analysis;
    $("deal-panel").hidden = !open || !state.dealShown;
    document.body.dataset.step = String(step);
  }

  function renderAnalysis() {
    const panel = $("analysis-panel");
    const a = state.analysis;
    panel.hidden = !a || state.mode !== "open";
    if (!a) return;
    const unit = a.unit === "VALUE_UNIT_TRICKS" ? "tricks" : "points";
    const made = a.made === undefined ? "not decided yet" : a.made ? "made" : "set";
    $("analysis-summary").innerHTML =
      `Value at the opening lead: <b>${a.value ?? 0}</b> ${units(unit, a.value ?? 0)} (${a.makes ? "should make" : "should be set"}); ` +
      `result <b>${a.result ?? 0}</b> ${units(unit, a.result ?? 0)}, ${made}.`;
    const body = document.querySelector("#analysis tbody");
    body.innerHTML = "";
    for (const p of a.plays || []) {
      const index = p.index ?? 0;
      const row = el("tr", { class: (p.cost ? "costly" : ""), "data-index": index, "data-tile": p.tile, "data-cost": p.cost ?? 0 },
        [index + 1, p.trick ?? 0, SEAT_OF_ENUM[p.seat] || "", p.tile, p.valueBefore ?? 0, p.valueAfter ?? 0, p.cost ?? 0,
         (p.alternatives || []).join(" ")].map((v) => `<td>${escapeHtml(v)}</td>`).join(""));
      row.title = "Show the position before this play";
      row.addEventListener("click", () => go(index, { fromRecord: true }));
      body.append(row);
    }
    const totals = document.querySelector("#seat-totals tbody");
    totals.innerHTML = "";
    for (const s of a.seats || []) {
      const seat = SEAT_OF_ENUM[s.seat];
      totals.append(el("tr", { "data-seat": seat }, [seat, state.doc.meta?.players?.[seat] || "", s.plays ?? 0,
        s.costlyPlays ?? 0, s.totalCost ?? 0].map((v) => `<td>${escapeHtml(v)}</td>`).join("")));
    }
  }

  async function loadDealTable() {
    const panel = $("deal-panel");
    panel.hidden = true;
    state.dealShown = false;
    if (!state.deal) return; // 42 deals only
    const mine = state.doc;
    let table;
    try {
      table = (await rpc("SolveDeal", state.deal)).table || {};
    } catch (err) {
      return; // the position itself already reported bad input
    }
    if (state.doc !== mine) return;
    const head = document.querySelector("#deal-table thead");
    const body = document.querySelector("#deal-table tbody");
    head.innerHTML = "<tr><th>declaration</th>" + SEATS.map((s) => `<th>${s}</th>`).join("") + "</tr>";
    body.innerHTML = "";
    const best = Object.fromEntries((table.best || []).map((b) => [SEAT_OF_ENUM[b.seat], b]));
    const isBest = (seat, declaration) => best[seat]?.declaration === declaration;
    for (const row of table.points || []) {
      const name = TRUMP_OF_ENUM[row.declaration];
      body.append(el("tr", { "data-declaration": name }, `<td>${name}</td>` + SEATS.map((s) =>
        `<td class="${isBest(s, row.declaration) ? "best" : ""}">${row[HAND_FIELD[s]] ?? 0}</td>`).join("")));
    }
    for (const row of table.makes || []) {
      const name = TRUMP_OF_ENUM[row.declaration];
      body.append(el("tr", { "data-declaration": name }, `<td>${name}</td>` + SEATS.map((s) => {
        const makes = row[HAND_FIELD[s]] === true;
        return `<td class="${isBest(s, row.declaration) ? "best" : makes ? "" : "set"}">${makes ? "makes" : "set"}</td>`;
      }).join("")));
    }
    body.append(el("tr", { class: "bids" }, "<td>highest bid made</td>" + SEATS.map((s) => {
      const bid = best[s]?.bid;
      return `<td>${bid == null ? "&ndash;" : bid >= 42 ? `${bid / 42} mark${bid > 42 ? "s" : ""}` : bid}</td>`;
    }).join("")));
    state.dealShown = true;
    panel.hidden = state.mode !== "open";
  }

  // ---------------------------------------------------------- navigation

  /** Show the position after `step` plays (asks the service for its values). */
  async function go(step) {
    if (!state.doc || !Number.isFinite(step)) return;
    step = Math.max(0, Math.min(step, state.plays.length));
    const token = ++state.request;
    document.body.dataset.busy = "1";
    let solution;
    try {
      solution = (await rpc("SolvePosition", { position: positionAt(state.plays.slice(0, step)) })).solution || {};
    } catch (err) {
      if (token === state.request) {
        showError(err);
        document.body.dataset.busy = "0";
      }
      return;
    }
    if (token !== state.request) return; // a later step won
    state.step = step;
    state.solution = solution;
    render();
    updateHash();
    document.body.dataset.busy = "0";
  }

  async function forward() {
    if (!state.doc) return;
    if (state.step < state.plays.length) return go(state.step + 1);
    const best = state.solution?.line?.[0];
    if (best) {
      state.plays = state.plays.concat(best);
      return go(state.step + 1);
    }
  }

  function playTile(tile) {
    const following = state.plays[state.step];
    if (following == null || following !== tile) {
      state.plays = state.plays.slice(0, state.step).concat(tile);
      state.recordLength = Math.min(state.recordLength, state.step);
    }
    go(state.step + 1);
  }

  /**
   * Load a position or hand record: its text as pasted (the server reads and checks it);
   * bad input shows the field and the reason.
   */
  async function load(text, step = 0) {
    clearError();
    document.body.dataset.busy = "1";
    let analysis = null;
    let answer, plays, solution;
    try {
      answer = await readDocument(text);
      plays = answer.document.plays || [];
      if (plays.length) analysis = (await rpc("AnalyzeHand", answer.record)).analysis || {};
      step = Math.max(0, Math.min(step, plays.length));
      solution = (await rpc("SolvePosition", { position: positionAt(plays.slice(0, step), answer.position) })).solution || {};
    } catch (err) {
      showError(err);
      document.body.dataset.busy = "0";
      return false;
    }
    state.request++;
    Object.assign(state, {
      doc: answer.document, position: answer.position, deal: answer.deal || null,
      plays, recordLength: plays.length, step, solution, analysis,
    });
    renderAnalysis();
    render();
    updateHash();
    document.body.dataset.busy = "0";
    document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
    loadDealTable();
    return true;
  }

  // ------------------------------------------------------ errors, links

  function showError(err) {
    const box = $("error");
    const violation = err.violations?.[0];
    box.querySelector(".error-field").textContent = violation ? violation.field : (err.field || err.code || "error");
    box.querySelector(".error-reason").textContent = violation ? violation.description : err.message;
    box.hidden = false;
    $("paste-input").classList.add("bad");
    openPaste(true);
  }

  function clearError() {
    $("error").hidden = true;
    $("paste-input").classList.remove("bad");
  }

  function openPaste(show) {
    $("paste-panel").hidden = !show;
    $("paste-toggle").setAttribute("aria-expanded", String(show));
  }

  /** The link of this page: #pos=<base64url JSON of the document>&step=<plays shown>. */
  function updateHash() {
    if (!state.doc) return;
    const doc = { ...state.doc, plays: state.plays };
    const hash = `#pos=${toBase64Url(JSON.stringify(doc))}&step=${state.step}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }

  function loadFromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const pos = params.get("pos");
    if (!pos) return false;
    let text;
    try {
      text = fromBase64Url(pos);
    } catch (err) {
      showError({ field: "link", message: "the link does not carry a position (base64url JSON)" });
      return true;
    }
    // A step that is no whole number is ignored (the start); one past the end is the end.
    const step = params.get("step");
    load(text, /^\d+$/.test(step || "") ? Number(step) : 0);
    return true;
  }

  // ------------------------------------------------------------- wiring

  async function init() {
    const examples = await fetch("examples.json").then((r) => r.json());
    const select = $("example");
    examples.forEach((example, i) => select.append(el("option", { value: String(i) }, escapeHtml(example.name))));
    select.addEventListener("change", () => {
      if (select.value !== "") {
        const doc = examples[Number(select.value)].doc;
        $("paste-input").value = JSON.stringify(doc, null, 1);
        load(JSON.stringify(doc));
        select.blur(); // the arrow keys step through the plays, not the list
      }
    });
    $("paste-toggle").addEventListener("click", () => openPaste($("paste-panel").hidden));
    $("paste-load").addEventListener("click", () => {
      select.value = "";
      load($("paste-input").value); // as pasted: the server reads it as t42 does
    });
    $("copy-link").addEventListener("click", () => navigator.clipboard?.writeText(location.href).catch(() => {}));
    $("first").addEventListener("click", () => go(0));
    $("back").addEventListener("click", () => go(state.step - 1));
    $("forward").addEventListener("click", forward);
    $("last").addEventListener("click", () => go(state.plays.length));
    document.querySelectorAll('input[name="mode"]').forEach((radio) => radio.addEventListener("change", () => {
      state.mode = document.querySelector('input[name="mode"]:checked').value;
      if (state.doc) render();
    }));
    $("view-seat").addEventListener("change", () => {
      state.viewSeat = $("view-seat").value;
      if (state.doc) render();
      $("view-seat").blur(); // the arrow keys step through the plays, not the list
    });
    // The arrow keys (Home, End) step through the plays wherever the focus is, a radio
    // button too, but in a text field or a list, which they edit.
    const editing = (target) => target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
      target.isContentEditable ||
      (target.tagName === "INPUT" && !["radio", "checkbox", "button", "submit", "reset"].includes(target.type));
    document.addEventListener("keydown", (event) => {
      if (editing(event.target) || !state.doc || event.altKey || event.ctrlKey || event.metaKey) return;
      const keys = { ArrowRight: forward, ArrowLeft: () => go(state.step - 1), Home: () => go(0), End: () => go(state.plays.length) };
      if (keys[event.key]) {
        event.preventDefault();
        keys[event.key]();
      }
    });
    window.addEventListener("hashchange", () => {
      const params = new URLSearchParams(location.hash.slice(1));
      const doc = state.doc ? toBase64Url(JSON.stringify({ ...state.doc, plays: state.plays })) : null;
      if (params.get("pos") !== doc) loadFromHash();
    });
    loadFromHash();
    document.body.dataset.ready = "1";
  }

  init();
})();

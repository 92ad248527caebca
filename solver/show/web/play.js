// A game of Texas 42 or Moon against bots, played in the browser. The page holds the
// game as far as its player may see it: the record of the finished hands (every hand
// revealed), and of the hand in play the player's own tiles, the calls, the contract and
// the plays. The other hands stay on the server, sealed in a token that the page passes
// back with each request and cannot read. Every rule (whose turn, what is legal, who won
// a trick, the score) and every figure comes from texas42.v1.HintService over Connect
// JSON; the page only draws and asks.
"use strict";

(() => {
  const {
    SEATS, SEAT_WORD, HAND_FIELD, SEAT_ENUM, SEAT_OF_ENUM, SEAT_OF_FIELD, TRUMP_ENUM,
    TRUMP_OF_ENUM, DOUBLES_ENUM, DOUBLES_OF_ENUM, KIND_ENUM, KIND_OF_ENUM, dominoGeometry,
    $, el, escapeHtml: esc, toBase64Url, fromBase64Url,
  } = window.T42Common;
  const ACTION_OF_ENUM = {
    GAME_ACTION_CALL: "call", GAME_ACTION_DECLARE: "declare", GAME_ACTION_DISCARD: "discard",
    GAME_ACTION_PLAY: "play",
  };

  /** Options a test or a curious player may change (window.T42Play). */
  const T42Play = (window.T42Play = window.T42Play || {});
  // The hint and bid advice: modest seeded samples, quick and repeatable.
  T42Play.hintOptions = T42Play.hintOptions || { deals: 50, seed: 42 };
  T42Play.adviceOptions = T42Play.adviceOptions || { deals: 50, seed: 42 };
  // The advice shown beside every call once a hand is over (four or more at once).
  T42Play.callAdviceOptions = T42Play.callAdviceOptions || { deals: 24, seed: 42 };
  // Bid advice played out by seat-view players: each deal is a whole hand of decisions.
  T42Play.playoutAdviceOptions = T42Play.playoutAdviceOptions || { deals: 20, seed: 42 };
  // The bots' deals (advice bot): NextAction's advice_deals and hint_deals.
  T42Play.botOptions = T42Play.botOptions || {};
  // From a bot's turn to its call or play shown on the page: {ms, bot, action}.
  T42Play.timings = [];

  const state = {
    settings: null, // {game, players, seat, bot, pause, gameSeed, botSeed}
    record: null, // the SPEC game record: finished hands whole, the hand in play partly
    live: null, // the hand in play: {mine, sealed, widow, discard, who: [seat per play]}
    check: null, // the last CheckGame answer
    pad: null, // CheckGame of the finished hands
    phase: "setup",
    run: 0,
    shown: null, // the finished hand shown: {index, step}
    actions: 0,
    lastShown: 0,
  };

  // ---------------------------------------------------------------- service

  let inFlight = 0;
  function setBusy(delta) {
    inFlight += delta;
    document.body.dataset.busy = inFlight > 0 ? "1" : "0";
  }

  async function rpc(method, body) {
    setBusy(1);
    try {
      return await T42Common.rpc(method, body);
    } finally {
      setBusy(-1);
    }
  }

  // ------------------------------------------------ records: SPEC JSON <-> proto JSON

  const isMoon = () => state.record.game === "moon";
  const players = () => (isMoon() ? state.record.players || 4 : 4);
  // Bid advice with one opening lead for every deal: four players only (a three-player
  // Moon declarer lays a tile away first, which the lead cannot be fixed before).
  const offersFixedLead = () => players() === 4;
  const seatsInPlay = () => SEATS.slice(0, players());

  function callToProto(call) {
    const out = { seat: SEAT_ENUM[call.seat] };
    if (call.bid === "plunge" || call.bid === "splash") out.kind = KIND_ENUM[call.bid];
    else if (call.bid !== "pass") out.bid = call.bid;
    return out;
  }

  function callFromProto(call) {
    const seat = SEAT_OF_ENUM[call.seat];
    const kind = KIND_OF_ENUM[call.kind];
    if (kind === "plunge" || kind === "splash") return { seat, bid: kind };
    return { seat, bid: call.bid ? Number(call.bid) : "pass" };
  }

  function contractToProto(c) {
    const out = { declarer: SEAT_ENUM[c.declarer], declaration: TRUMP_ENUM[c.trump] };
    if (c.bid != null) out.bid = c.bid;
    if (c.kind && c.kind !== "standard") out.kind = KIND_ENUM[c.kind];
    if (c.doubles && c.doubles !== "high") out.doubles = DOUBLES_ENUM[c.doubles];
    return out;
  }

  function contractFromProto(c) {
    const out = { declarer: SEAT_OF_ENUM[c.declarer], trump: TRUMP_OF_ENUM[c.declaration],
      bid: Number(c.bid || 0) };
    const kind = KIND_OF_ENUM[c.kind];
    if (kind && kind !== "standard") out.kind = kind;
    const doubles = DOUBLES_OF_ENUM[c.doubles];
    if (doubles && doubles !== "high") out.doubles = doubles;
    return out;
  }

  function handsToProto(hands) {
    return Object.fromEntries(Object.entries(hands).map(([s, tiles]) => [HAND_FIELD[s], tiles]));
  }

  function handsFromProto(hands) {
    return Object.fromEntries(Object.entries(hands || {}).map(([f, tiles]) => [SEAT_OF_FIELD[f], tiles]));
  }

  function rulesToProto(rules) {
    const out = {};
    if (rules.all_pass) out.allPass = rules.all_pass === "reshake" ? "ALL_PASS_RULE_RESHAKE" : "ALL_PASS_RULE_FORCED";
    if (rules.splash != null) out.splash = rules.splash;
    if (rules.nello_min_marks != null) out.nelloMinMarks = rules.nello_min_marks;
    if (rules.min_bid != null) out.minBid = rules.min_bid;
    if (rules.score) out.score = rules.score === "marks" ? "MOON_SCORING_MARKS" : "MOON_SCORING_POINTS";
    return out;
  }

  /** A hand of the record as a proto GameHand; the hand in play holds no hidden hand. */
  function handToProto(hand) {
    const out = {};
    if (hand.hands) out.hands = handsToProto(hand.hands);
    if (hand.widow) out.widow = hand.widow;
    out.auction = (hand.auction || []).map(callToProto);
    if (hand.contract) {
      out.contract = contractToProto(hand.contract);
      if (hand.contract.discard) out.discard = hand.contract.discard;
    }
    out.plays = hand.plays || [];
    return out;
  }

  function recordToProto(record) {
    const out = {
      game: record.game === "moon" ? "GAME_MOON" : "GAME_FORTY_TWO",
      firstShaker: SEAT_ENUM[record.first_shaker],
      hands: record.hands.map(handToProto),
    };
    if (record.players) out.players = record.players;
    if (record.rules && Object.keys(record.rules).length) out.rules = rulesToProto(record.rules);
    if (record.id) out.id = String(record.id);
    return out;
  }

  /** The record of the finished hands only: a SPEC game record to download or share. */
  function finishedRecord() {
    const r = state.record;
    const hands = state.live ? r.hands.slice(0, -1) : r.hands;
    const out = { game: r.game };
    if (r.players) out.players = r.players;
    if (r.rules && Object.keys(r.rules).length) out.rules = r.rules;
    out.first_shaker = r.first_shaker;
    out.hands = hands.map((h) => {
      const hand = { hands: h.hands };
      if (h.widow) hand.widow = h.widow;
      hand.auction = h.auction;
      if (h.contract) hand.contract = h.contract;
      hand.plays = h.plays;
      return hand;
    });
    return out;
  }

  const lastHand = () => state.record.hands[state.record.hands.length - 1];

  // ---------------------------------------------------------------- seeds

  /** Hand k's deal seed (k from 0) of a game seed: the same game seed deals the same game. */
  const handSeed = (gameSeed, k) => gameSeed * 1000 + k + 1;

  // ---------------------------------------------------------------- the table

  // The table's latest token is kept in this browser, so that a reload resumes the game
  // (ResumeTable); the settings beside it say how the page was set.
  const TABLE_KEY = "t42.table";

  function saveTable() {
    try {
      if (state.table && !(state.pad && state.pad.winner != null)) {
        localStorage.setItem(TABLE_KEY, JSON.stringify({ token: state.table, settings: state.settings }));
      } else {
        localStorage.removeItem(TABLE_KEY);
      }
    } catch (err) { /* no storage (private mode): a reload starts afresh */ }
  }

  function recordFromProto(r) {
    const out = { game: r.game === "GAME_MOON" ? "moon" : "42", first_shaker: SEAT_OF_ENUM[r.firstShaker], rules: {} };
    if (r.players) out.players = r.players;
    const rules = r.rules || {};
    if (rules.allPass) out.rules.all_pass = rules.allPass === "ALL_PASS_RULE_RESHAKE" ? "reshake" : "forced";
    if (rules.splash != null) out.rules.splash = rules.splash;
    if (rules.nelloMinMarks != null) out.rules.nello_min_marks = rules.nelloMinMarks;
    if (rules.minBid != null) out.rules.min_bid = rules.minBid;
    if (rules.score) out.rules.score = rules.score === "MOON_SCORING_MARKS" ? "marks" : "points";
    out.hands = (r.hands || []).map((h) => {
      const hand = { hands: handsFromProto(h.hands), auction: (h.auction || []).map(callFromProto), plays: h.plays || [] };
      if (h.widow) hand.widow = h.widow;
      if (h.contract) {
        hand.contract = contractFromProto(h.contract);
        if (h.discard) hand.contract.discard = h.discard;
      }
      return hand;
    });
    return out;
  }

  /** The server no longer knows the table (restarted without its table database) or
   * cannot read the token: the page offers to deal the hand again, the game kept. */
  const tableLost = (err) => err?.reason === "TABLE_UNKNOWN" || err?.reason === "SEALED_INVALID";

  function offerRedeal(err) {
    showError(err);
    setPhase("error");
    const button = el("button", { type: "button", id: "redeal", class: "primary" },
      "Deal this hand again (the game is kept)");
    button.addEventListener("click", redeal);
    $("error").append(" ", button);
  }

  /** A new table that carries the finished hands on the page's word, and a new deal of
   * the hand that was in play. */
  async function redeal() {
    state.run++;
    if (state.live) state.record.hands.pop();
    state.live = null;
    state.table = null;
    clearError();
    await startHand();
  }

  /** Where the table of the token this browser kept is: its game goes on. */
  async function resumeTable(saved) {
    let where;
    try {
      where = await rpc("ResumeTable", { sealed: saved.token });
    } catch (err) {
      localStorage.removeItem(TABLE_KEY);
      return false;
    }
    state.settings = { ...saved.settings, seat: SEAT_OF_ENUM[where.seat] };
    state.record = recordFromProto(where.record);
    state.table = where.sealed;
    state.practice = Boolean(where.practice);
    state.seeds = [];
    state.grades = {};
    state.atTable = true;
    state.whos = state.record.hands.map(ownersOf);
    state.progress = [];
    state.decisions = [];
    state.actions = 0;
    $("practice-note").hidden = !state.practice;
    $("setup").hidden = true;
    $("game").hidden = false;
    const finished = state.record.hands.slice(0, -1);
    state.pad = await rpc("CheckGame", { record: recordToProto({ ...state.record, hands: finished }) });
    const last = lastHand();
    if (!last) return false;
    const mine = last.hands[state.settings.seat];
    const open = Object.keys(last.hands).length > 1;   // the table showed it all: over
    if (open) {
      state.live = null;
      state.pad = await rpc("CheckGame", { record: recordToProto(state.record) });
      const over = state.pad.winner != null;
      setPhase(over ? "game-over" : "hand-over");
      drawAll();
      $("next-panel").hidden = over;
      if (over) finishGame();
      await showHand(state.record.hands.length - 1);
      return true;
    }
    state.live = { mine, sealed: where.sealed, who: [], widow: last.widow || null,
      discard: last.contract?.discard || null };
    delete last.hands;
    const check = await checkGame();
    state.live.who = (check.progress?.tricks || []).flatMap((t) => (t.seats || []).map((e) => SEAT_OF_ENUM[e]));
    document.body.dataset.hand = String(state.record.hands.length);
    announce(`Hand ${state.record.hands.length} resumed: you hold ${liveTiles().join(" ")}.`);
    await advance();
    return true;
  }

  /** After a hand: each bot's calls and plays with the figures it used. */
  function drawBotReasons(k) {
    const body = $("bot-reasons").tBodies[0];
    body.innerHTML = "";
    const decisions = state.decisions?.[k] || [];
    $("bot-reasons-box").hidden = !decisions.length;
    for (const d of decisions) {
      const seat = SEAT_OF_ENUM[d.seat];
      const action = ACTION_OF_ENUM[d.action];
      const what = action === "call" ? bidWords(callFromProto({ ...(d.call || {}), seat: d.seat }).bid) :
        action === "play" ? d.tile : `${action === "discard" ? `lays away ${d.tile}, ` : ""}names ${TRUMP_OF_ENUM[d.declaration]}`;
      const f = d.figures;
      let why = "no search (a rule, a forced choice or a pass)";
      if (f) {
        const share = `P(make) ${Math.round((f.pMake || 0) * 100)}% over ${f.deals} deals`;
        why = action === "play" ? `${share}${f.mean != null ? `, mean ${Number(f.mean).toFixed(1)}` : ""}` :
          `${share} for ${bidWords(f.bid || 0)} ${TRUMP_OF_ENUM[f.declaration] || ""}`.trim();
      }
      body.append(el("tr", {}, `<td>${esc(SEAT_WORD[seat])}</td><td>${esc(what)}</td><td>${esc(why)}</td>`));
    }
  }

  // ---------------------------------------------------------------- drawing

  function dominoSvg(tile, { horizontal = false } = {}) {
    const { w, h, line, halves } = dominoGeometry(tile, 32, horizontal);
    const parts = [
      `<svg class="domino${horizontal ? " across" : ""}" viewBox="-1 -1 ${w + 2} ${h + 2}" aria-hidden="true" focusable="false">`,
      `<rect class="face" x="0" y="0" width="${w}" height="${h}" rx="4.5"/>`,
      `<line x1="${line.x1}" y1="${line.y1}" x2="${line.x2}" y2="${line.y2}"/>`,
    ];
    for (const { centres } of halves) {
      for (const [cx, cy] of centres) parts.push(`<circle cx="${cx}" cy="${cy}" r="2.7"/>`);
    }
    parts.push("</svg>");
    return parts.join("");
  }

  const percent = (p) => `${Math.round((p || 0) * 100)}%`;
  const partner = (seat) => SEATS[(SEATS.indexOf(seat) + 2) % 4];
  const sideOf = (seat) => (players() === 3 ? seat : seat === "N" || seat === "S" ? "NS" : "EW");

  function bidWords(bid) {
    if (bid === "pass") return "pass";
    if (bid === "plunge" || bid === "splash") return bid;
    if (isMoon()) return bid === 21 ? "21 (shoot the moon)" : String(bid);
    if (bid >= 42) return `${bid / 42} mark${bid === 42 ? "" : "s"} (${bid})`;
    return String(bid);
  }

  function contractWords(c) {
    if (!c) return "";
    const kind = c.kind && c.kind !== "standard" ? ` ${c.kind}` : "";
    const doubles = c.doubles && c.doubles !== "high" ? ` (doubles ${c.doubles})` : "";
    return `${SEAT_WORD[c.declarer]} ${bidWords(c.bid)}${kind}, ${c.trump}${doubles}`;
  }

  function showError(err) {
    const box = $("error");
    const v = err.violations?.[0];
    box.querySelector(".error-field").textContent = v ? v.field : err.method || "error";
    box.querySelector(".error-reason").textContent = v ? v.description : err.message;
    box.hidden = false;
    document.body.dataset.error = "1";
  }

  function clearError() {
    $("error").hidden = true;
    delete document.body.dataset.error;
  }

  function setPhase(phase) {
    state.phase = phase;
    document.body.dataset.state = phase;
    document.body.dataset.actions = String(state.actions);
  }

  function announce(text) {
    $("log").append(el("li", {}, esc(text)));
    $("log").scrollTop = $("log").scrollHeight;
  }

  /** Seats around the table, the player at the bottom. */
  function positions(me) {
    const seats = seatsInPlay();
    const i = seats.indexOf(me);
    const order = seats.map((_, k) => seats[(i + k) % seats.length]);
    if (seats.length === 3) return { bottom: order[0], left: order[1], right: order[2] };
    return { bottom: order[0], left: order[1], top: order[2], right: order[3] };
  }

  // --------------------------------------------------------------- the table

  /** The tricks of the hand in play, from CheckGame's progress (or a finished hand's). */
  function tricksOf(check) {
    return (check?.progress?.tricks || []).map((t) => ({
      leader: SEAT_OF_ENUM[t.leader], tiles: t.tiles || [], seats: (t.seats || []).map((x) => SEAT_OF_ENUM[x]),
      winner: t.winner ? SEAT_OF_ENUM[t.winner] : null, points: t.points || 0, takenBy: t.takenBy || "",
    }));
  }

  function seatOfPlay(i) {
    return state.live?.who?.[i] || null;
  }

  function drawTable() {
    const rec = state.record;
    if (!rec || !state.settings) return;
    $("rules-link").hash = isMoon() ? "moon" : "";
    const hand = lastHand();
    const me = state.settings.seat;
    const pos = positions(me);
    const check = state.check;
    const next = check?.next ? SEAT_OF_ENUM[check.next.seat] : null;
    const contract = hand.contract;
    const out = contract?.trump === "nello" ? partner(contract.declarer) : null;
    const played = {};
    let n = 0;
    for (const t of tricksOf(check)) {
      t.tiles.forEach((tile, i) => {
        const seat = t.seats[i] || seatOfPlay(n + i);
        if (seat) played[seat] = (played[seat] || 0) + 1;
      });
      n += t.tiles.length;
    }
    const legalTiles = new Set(state.phase === "play" ? (check?.legal?.tiles || []) : []);
    const calls = {};
    (hand.auction || []).forEach((c) => { calls[c.seat] = c.bid; });

    for (const [where, seat] of Object.entries({ top: null, left: null, right: null, bottom: null, ...pos })) {
      const box = document.querySelector(`#table .seat[data-pos="${where}"]`);
      box.innerHTML = "";
      box.hidden = !seat;
      if (!seat) continue;
      box.dataset.seat = seat;
      const tags = [];
      if (seat === me) tags.push("you");
      if (contract?.declarer === seat) tags.push("declarer");
      if (out === seat) tags.push("sits out");
      const name = el("div", { class: "name" + (seat === next ? " to-move" : ""), id: `name-${seat}` },
        `${SEAT_WORD[seat]}${tags.length ? ` <span class="tag">(${tags.join(", ")})</span>` : ""}`);
      if (calls[seat] != null) name.append(el("span", { class: "call", "data-seat": seat }, esc(bidWords(calls[seat]))));
      box.append(name);
      if (seat === me && state.live) {
        box.append(myHand(legalTiles));
      } else {
        const left = 7 - (played[seat] || 0);
        const backs = el("div", { class: "hand backs", role: "img", "aria-label": `${SEAT_WORD[seat]}: ${left} tiles` });
        for (let i = 0; i < left; i++) backs.append(el("div", { class: "back" }));
        box.append(backs);
      }
    }

    drawTrick($("trick"), tricksOf(check), (i) => seatOfPlay(i));
    drawProgress();
  }

  /** The player's tiles: buttons, the legal ones enabled, one tab stop, arrows between them. */
  function myHand(legalTiles) {
    const live = state.live;
    const hand = lastHand();
    const playedTiles = new Set(hand.plays || []);
    const tiles = liveTiles().filter((t) => !playedTiles.has(t));
    const group = el("div", { class: "hand mine", role: "group", "aria-label": "Your tiles", id: "my-hand" });
    const hint = state.hint && state.hint.plays === hand.plays.length ? state.hint : null;
    let first = true;
    for (const tile of tiles) {
      const legal = legalTiles.has(tile);
      const figures = hint?.moves?.[tile];
      const label = `${tile}${figures ? `, ${hint.side.chance} ${figures.chance}%, ${hint.side.meanName} ${figures.mean.toFixed(1)}` : ""}`;
      const node = el("button", {
        type: "button", class: "tile" + (legal ? " legal" : "") + (hint?.best?.includes(tile) ? " best" : ""),
        "data-tile": tile, "aria-label": label, disabled: !legal && state.phase === "play" ? true : null,
        tabindex: legal && first ? "0" : "-1",
      }, dominoSvg(tile));
      if (legal) first = false;
      if (figures) node.append(el("span", { class: "badge", "aria-hidden": "true" }, `${figures.chance}%<br>${figures.mean.toFixed(1)}`));
      if (legal) node.addEventListener("click", () => playTile(tile));
      if (state.phase !== "play") node.disabled = true;
      group.append(node);
    }
    if (live.discard && state.phase !== "discard") {
      group.append(el("span", { class: "note discarded" }, `laid away ${esc(live.discard)}`));
    }
    group.addEventListener("keydown", (event) => {
      const keys = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
      if (!(event.key in keys) && event.key !== "Home" && event.key !== "End") return;
      const buttons = [...group.querySelectorAll("button.legal:not([disabled])")];
      if (!buttons.length) return;
      event.preventDefault();
      let i = buttons.indexOf(document.activeElement);
      if (event.key === "Home") i = 0;
      else if (event.key === "End") i = buttons.length - 1;
      else i = (i + keys[event.key] + buttons.length) % buttons.length;
      buttons.forEach((b) => { b.tabIndex = -1; });
      buttons[i].tabIndex = 0;
      buttons[i].focus();
    });
    return group;
  }

  /** The player's tiles in play: as dealt, or for the Moon declarer with the widow in and the discard out. */
  function liveTiles() {
    const live = state.live;
    let tiles = [...live.mine];
    if (live.widow && live.discard) tiles = tiles.concat([live.widow]).filter((t) => t !== live.discard);
    return tiles.sort((a, b) => b.localeCompare(a));
  }

  function drawTrick(box, tricks, seatOf) {
    box.innerHTML = "";
    let trick = tricks.length ? tricks[tricks.length - 1] : null;
    if (!trick) return;
    const base = tricks.slice(0, -1).reduce((n, t) => n + t.tiles.length, 0);
    const me = state.settings?.seat || "S";
    const pos = positions(me);
    const whereOf = Object.fromEntries(Object.entries(pos).map(([k, v]) => [v, k]));
    trick.tiles.forEach((tile, i) => {
      const seat = trick.seats?.[i] || seatOf(base + i);
      const where = whereOf[seat] || "top";
      const node = el("div", { class: `played ${where}`, "data-tile": tile, "data-seat": seat || "" },
        dominoSvg(tile, { horizontal: where === "left" || where === "right" }));
      // Two lines that never break inside: the seat (and "wins"), then the tile.
      node.append(el("span", { class: "who" }, `<span>${seat ? SEAT_WORD[seat] : ""}${trick.winner === seat && seat ? " wins" : ""}</span> <span>${tile}</span>`));
      box.append(node);
    });
    if (trick.winner) box.append(el("div", { class: "trick-winner", id: "trick-winner" }, `${SEAT_WORD[trick.winner]} wins the trick${trick.points ? `, ${trick.points} point${trick.points === 1 ? "" : "s"}` : ""}`));
  }

  function drawProgress() {
    const hand = lastHand();
    $("contract").innerHTML = hand?.contract ? `<b>${esc(contractWords(hand.contract))}</b>` :
      hand ? "The auction" : "";
    const prog = state.check?.progress;
    const box = $("progress");
    box.innerHTML = "";
    if (!prog || !(prog.tricks || []).length) return;
    const tricks = tricksOf(state.check);
    const won = {};
    for (const t of tricks) if (t.winner) won[t.takenBy || sideOf(t.winner)] = (won[t.takenBy || sideOf(t.winner)] || 0) + 1;
    const points = prog.taken || {};
    const sides = Object.keys(points).length ? Object.keys(points) :
      players() === 3 ? ["N", "E", "S"] : ["NS", "EW"];
    const rows = sides.map((side) => `<tr data-side="${side}"><th scope="row">${side}</th><td class="tricks">${won[side] || 0}</td><td class="points">${points[side] || 0}</td></tr>`).join("");
    box.innerHTML = `<table class="progress"><thead><tr><th scope="col">side</th><th scope="col">tricks</th><th scope="col">${isMoon() ? "tricks (points)" : "points"}</th></tr></thead><tbody>${rows}</tbody></table>` +
      `<ol class="tricks">${tricks.map((t, k) => `<li data-trick="${k + 1}">${t.tiles.join(" ")}${t.winner ? ` &rarr; ${SEAT_WORD[t.winner]}` : ""}</li>`).join("")}</ol>`;
  }

  // ------------------------------------------------------------ choices

  function drawChoices() {
    const check = state.check;
    const legal = check?.legal || {};
    $("call-panel").hidden = state.phase !== "call";
    $("fixed-lead-label").hidden = !offersFixedLead();
    $("playout-label").hidden = !offersFixedLead();   // four players: no widow to lay away
    $("declare-panel").hidden = state.phase !== "declare" && state.phase !== "discard";
    $("play-panel").hidden = state.phase !== "play";
    if (state.phase !== "play") $("hint").hidden = true;
    if (state.phase !== "call") $("advice").hidden = true;
    if (state.phase === "call") {
      const box = $("calls");
      box.innerHTML = "";
      for (const c of legal.calls || []) {
        const call = callFromProto({ ...c, seat: SEAT_ENUM[state.settings.seat] });
        const button = el("button", { type: "button", class: "call-button", "data-bid": String(call.bid) }, esc(bidWords(call.bid)));
        button.addEventListener("click", () => makeCall(call.bid));
        box.append(button);
      }
    }
    if (state.phase === "declare" || state.phase === "discard") {
      const box = $("declarations");
      box.innerHTML = "";
      const decls = (legal.declarations || []).map((d) => (typeof d === "string" ? TRUMP_OF_ENUM[d] : TRUMP_OF_ENUM[d.declaration]));
      const doubles = (legal.doubles || []).map((d) => DOUBLES_OF_ENUM[d]).filter(Boolean);
      $("doubles-label").hidden = !doubles.length;
      const select = $("doubles");
      const keep = select.value;
      select.innerHTML = doubles.map((d) => `<option value="${d}">${{ high: "high", low: "low", suit: "a suit of their own" }[d]}</option>`).join("");
      if (doubles.includes(keep)) select.value = keep;
      for (const trump of decls) {
        const button = el("button", { type: "button", class: "declare-button", "data-trump": trump }, esc(trump));
        button.addEventListener("click", () => declare(trump));
        box.append(button);
      }
      const discarding = state.phase === "discard";
      $("discard-choice").hidden = !discarding;
      if (discarding) {
        const tiles = $("discard-tiles");
        tiles.innerHTML = "";
        const options = legal.tiles?.length ? legal.tiles : [...state.live.mine, state.live.widow];
        for (const tile of options.slice().sort((a, b) => b.localeCompare(a))) {
          const chosen = state.live.pendingDiscard === tile;
          const widow = tile === state.live.widow;
          const button = el("button", { type: "button", class: "tile legal" + (chosen ? " chosen" : "") + (widow ? " widow" : ""), "data-tile": tile,
            "aria-pressed": chosen ? "true" : "false", "aria-label": `${tile}${widow ? " (the widow)" : ""}` }, dominoSvg(tile));
          if (widow) button.append(el("span", { class: "badge widow-mark", "aria-hidden": "true" }, "widow"));
          button.addEventListener("click", () => { state.live.pendingDiscard = tile; drawChoices(); $("discard-tiles").querySelector(`[data-tile="${tile}"]`).focus(); });
          tiles.append(button);
        }
        $("declarations").querySelectorAll("button").forEach((b) => { b.disabled = !state.live.pendingDiscard; });
      }
    }
  }

  // ---------------------------------------------------------- the game loop

  async function checkGame() {
    const body = { record: recordToProto(state.record) };
    if (state.live) body.sealed = state.live.sealed;
    const answer = await rpc("CheckGame", body);
    state.check = answer;
    return answer;
  }

  /** Over: thrown in, or every trick played (a decided hand is played out all the same). */
  function handOver(check, hand) {
    const result = check.hands?.[check.hands.length - 1];
    if (!result) return false;
    if (result.made != null) return true;
    return Boolean(check.progress?.over) && !hand.contract;
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Runs the bots until the player is to act, the hand is over or the game is won. */
  async function advance() {
    const token = ++state.run;
    try {
      for (;;) {
        setPhase("wait");
        const check = await checkGame();
        if (token !== state.run) return;
        const hand = lastHand();
        if (handOver(check, hand) || check.winner) {
          await finishHand(token);
          return;
        }
        const seat = SEAT_OF_ENUM[check.next.seat];
        const action = ACTION_OF_ENUM[check.next.action];
        document.body.dataset.turn = seat;
        if (seat === state.settings.seat && action === "play" && check.progress?.over) {
          // The outcome is decided: the rest of the hand plays itself (the score needs it
          // played out), without waiting for the person.
          const tile = check.legal.tiles[0];
          hand.plays.push(tile);
          state.live.who.push(seat);
          state.actions += 1;
          noteAction(seat, `plays ${tile} (the outcome is decided: the hand plays itself out)`);
          drawAll();
          continue;
        }
        if (seat === state.settings.seat) {
          if (action === "discard" && !state.live.widow) {
            const taken = await rpc("TakeWidow", { record: recordToProto(state.record), sealed: state.live.sealed });
            state.live.widow = taken.widow;
            announce(`You take the widow: ${taken.widow}.`);
          }
          setPhase(action);
          drawAll();
          $("status").textContent = { call: "Your call.", declare: "Name the trump.", discard: "Lay away a tile and name the trump.", play: "Your play." }[action];
          focusChoice(action);
          return;
        }
        setPhase("bot");
        drawAll();
        $("status").textContent = `${SEAT_WORD[seat]} to ${action}\u2026`;
        const started = state.lastShown || performance.now();
        // The table's bot at that seat decides (set with the table: no bot or seed here).
        const request = { record: recordToProto(state.record), seat: SEAT_ENUM[seat], sealed: state.live.sealed };
        const answer = await rpc("NextAction", request);
        if (token !== state.run) return;
        applyBot(seat, action, answer);
        drawAll();
        state.lastShown = performance.now();
        T42Play.timings.push({ ms: state.lastShown - started, bot: state.settings.bot, action });
        if (state.settings.pause > 0 && !check.progress?.over) {
          await sleep(state.settings.pause);
          state.lastShown = performance.now();
        }
      }
    } catch (err) {
      if (token === state.run) {
        if (tableLost(err)) {
          offerRedeal(err);
          return;
        }
        showError(err);
        setPhase("error");
      }
    }
  }

  function focusChoice(action) {
    const target = action === "call" ? $("calls").querySelector("button") :
      action === "play" ? document.querySelector("#my-hand button[tabindex='0']") :
        action === "discard" ? $("discard-tiles").querySelector("button") : $("declarations").querySelector("button");
    if (target && document.activeElement && document.activeElement !== document.body &&
        !document.activeElement.closest("#hand-end, #setup")) target.focus();
  }

  /** The contract the auction made, with the trump named (plunge: the partner names it). */
  function contractFor(trump, doubles, discard) {
    const hand = lastHand();
    const bids = hand.auction.filter((c) => c.bid !== "pass");
    const win = bids[bids.length - 1];
    const contract = { declarer: win.seat, trump };
    if (win.bid === "plunge" || win.bid === "splash") {
      contract.bid = win.bid === "plunge" ? 168 : 84;
      contract.kind = win.bid;
    } else {
      contract.bid = win.bid;
    }
    if (doubles && doubles !== "high" && (trump === "follow-me" || trump === "nello")) contract.doubles = doubles;
    if (discard) contract.discard = discard;
    return contract;
  }

  function noteAction(seat, text) {
    announce(`${SEAT_WORD[seat]}: ${text}`);
    $("status").textContent = `${SEAT_WORD[seat]}: ${text}`;
  }

  function applyBot(seat, action, answer) {
    const hand = lastHand();
    state.actions += 1;
    if (answer.sealed) state.live.sealed = answer.sealed;
    if (action === "call") {
      const call = callFromProto({ ...(answer.call || {}), seat: SEAT_ENUM[seat] });
      hand.auction.push(call);
      noteAction(seat, bidWords(call.bid));
    } else if (action === "declare" || action === "discard") {
      const trump = TRUMP_OF_ENUM[answer.declaration];
      const doubles = DOUBLES_OF_ENUM[answer.doubles];
      hand.contract = contractFor(trump, doubles);
      noteAction(seat, `${action === "discard" ? "takes the widow, lays a tile away and " : ""}names ${trump}${doubles && doubles !== "high" ? ` (doubles ${doubles})` : ""}`);
    } else {
      hand.plays.push(answer.tile);
      state.live.who.push(seat);
      noteAction(seat, `plays ${answer.tile}`);
    }
  }

  async function makeCall(bid) {
    if (state.phase !== "call") return;
    const hand = lastHand();
    hand.auction.push({ seat: state.settings.seat, bid });
    state.actions += 1;
    noteAction(state.settings.seat, bidWords(bid));
    state.lastShown = performance.now();
    await advance();
  }

  async function declare(trump) {
    if (state.phase !== "declare" && state.phase !== "discard") return;
    const hand = lastHand();
    const discard = state.phase === "discard" ? state.live.pendingDiscard : null;
    if (state.phase === "discard" && !discard) return;
    hand.contract = contractFor(trump, $("doubles").value, discard);
    if (discard) state.live.discard = discard;
    state.actions += 1;
    noteAction(state.settings.seat, `${discard ? `lays away ${discard} and ` : ""}names ${trump}`);
    state.lastShown = performance.now();
    await advance();
  }

  async function playTile(tile) {
    if (state.phase !== "play") return;
    const hand = lastHand();
    hand.plays.push(tile);
    state.live.who.push(state.settings.seat);
    state.actions += 1;
    state.hint = null;
    noteAction(state.settings.seat, `plays ${tile}`);
    state.lastShown = performance.now();
    setPhase("wait");
    drawAll();
    $("table").focus();
    await advance();
  }

  function drawAll() {
    drawTable();
    drawChoices();
    drawPad();
    $("download").disabled = !state.record || !finishedRecord().hands.length;
    $("copy-link").disabled = $("download").disabled;
  }

  // --------------------------------------------------------------- a hand

  async function startHand() {
    clearError();
    const k = state.record.hands.length;
    const request = { record: recordToProto(state.record) };
    if (state.table) {
      request.sealed = state.table;   // the table's next hand, once
    } else {   // a new table: the person's seat and the bots, fixed from now on
      request.seat = SEAT_ENUM[state.settings.seat];
      request.bots = seatsInPlay().filter((s) => s !== state.settings.seat).map((s) => (
        { seat: SEAT_ENUM[s], bot: state.settings.bot, ...T42Play.botOptions }));
      request.practice = state.settings.gameSeed != null;
    }
    // A game seed deals at a practice table (its hands can be computed, so not sealed).
    if (state.settings.gameSeed != null) request.seed = handSeed(state.settings.gameSeed, k);
    $("hand-end").hidden = true;
    $("next-panel").hidden = true;
    $("hint").hidden = true;
    $("advice").hidden = true;
    state.shown = null;
    try {
      const dealt = await rpc("DealHand", request);
      state.table = dealt.sealed;
      state.practice = dealt.practice;
      saveTable();
      $("practice-note").hidden = !dealt.practice;
      state.live = { mine: dealt.hand, sealed: dealt.sealed, who: [], widow: null, discard: null };
      state.record.hands.push({ auction: [], plays: [] });
      state.check = null;
      state.hint = null;
      document.body.dataset.hand = String(k + 1);
      $("log").innerHTML = "";
      announce(`Hand ${k + 1}: you hold ${liveTiles().join(" ")}.`);
      state.lastShown = performance.now();
      await advance();
    } catch (err) {
      if (tableLost(err)) offerRedeal(err);
      else {
        showError(err);
        setPhase("error");
      }
    }
  }

  /** The hand is over: reveal it, score it, and show its analysis. */
  async function finishHand(token) {
    const hand = lastHand();
    const revealed = await rpc("RevealHand", { record: recordToProto(state.record), sealed: state.live.sealed });
    if (token !== state.run) return;
    hand.hands = handsFromProto(revealed.hands);
    if (revealed.widow) hand.widow = revealed.widow;
    if (revealed.discard && hand.contract) hand.contract.discard = revealed.discard;
    hand.seed = revealed.seed;
    const live = state.live;
    state.live = null;
    const k = state.record.hands.length - 1;
    state.seeds = state.seeds || [];
    state.seeds[k] = revealed.seed;
    state.decisions = state.decisions || [];
    state.decisions[k] = revealed.decisions || [];
    state.whos = state.whos || [];
    state.whos[k] = live.who;
    state.progress = state.progress || [];
    state.progress[k] = state.check.progress;
    state.pad = await rpc("CheckGame", { record: recordToProto(finishedRecord()) });
    delete hand.seed;
    const over = state.pad.winner != null;
    saveTable();
    setPhase(over ? "game-over" : "hand-over");
    drawAll();
    $("next-panel").hidden = over;
    if (over) finishGame();
    else $("status").textContent = "Hand over. Read the analysis, then play the next hand.";
    await showHand(k);
  }

  /** The game is won: the final score, the table's token kept among this browser's
   * finished games (the page of finished games lists them), the person's game graded. */
  function finishGame() {
    showFinal();
    if (state.table) T42Coach.addFinished(state.table);
    showGameGrades();
  }

  function showFinal() {
    const pad = state.pad;
    // The sides in the score pad's order (the service's map has an order of its own).
    const score = padKeys().map((k) => `${k} ${pad.score?.[k] ?? 0}`).join(", ");
    const text = `Game over: ${pad.winner} wins. Final score ${score}.`;
    $("final").textContent = text;
    $("final").hidden = false;
    $("status").textContent = text;
    announce(text);
  }

  // ---------------------------------------------------------- the score pad

  /** The score pad's columns: the players (three-player Moon) or the sides. */
  const padKeys = () => (players() === 3 ? ["N", "E", "S"] : ["NS", "EW"]);

  function drawPad() {
    const pad = state.pad;
    const table = $("score-pad");
    if (!pad) { table.tHead.innerHTML = ""; table.tBodies[0].innerHTML = ""; return; }
    const keys = padKeys();
    table.tHead.innerHTML = `<tr><th scope="col">hand</th><th scope="col">shaker</th><th scope="col">contract</th><th scope="col">result</th>${keys.map((k) => `<th scope="col">${k}</th>`).join("")}</tr>`;
    table.tBodies[0].innerHTML = "";
    (pad.hands || []).forEach((h, i) => {
      const contract = h.contract ? contractWords(contractFromProto(h.contract)) : "thrown in";
      const result = h.made == null ? "" : h.made ? "made" : "set";
      const row = el("tr", { "data-hand": String(i + 1) },
        `<td><button type="button" class="linkish" data-show="${i}" aria-label="Show hand ${i + 1}">${i + 1}</button></td>` +
        `<td>${esc(h.shaker ? SEAT_OF_ENUM[h.shaker] : "")}</td><td>${esc(contract)}</td><td>${result}</td>` +
        keys.map((k) => `<td data-key="${k}">${h.score?.[k] ?? 0}</td>`).join(""));
      row.querySelector("button").addEventListener("click", () => showHand(i));
      table.tBodies[0].append(row);
    });
  }

  // ------------------------------------------------- a finished hand, analysed

  async function showHand(k) {
    const rec = state.record;
    const hand = rec.hands[k];
    const result = state.pad?.hands?.[k];
    state.shown = { index: k, step: (hand.plays || []).length };
    $("hand-end").hidden = false;
    $("hand-end-title").textContent = `Hand ${k + 1}`;
    const before = k > 0 ? state.pad.hands[k - 1].score || {} : {};
    const after = result?.score || {};
    const delta = Object.keys(after).map((key) => [key, (after[key] || 0) - (before[key] || 0)])
      .filter(([, d]) => d).map(([key, d]) => `${key} ${d > 0 ? "+" : ""}${d}`).join(", ");
    const unit = isMoon() && rec.rules?.score !== "marks" ? "points" : "marks";
    const points = state.progress?.[k]?.points;
    const taken = points ? ` Taken: ${Object.entries(points).map(([s, p]) => `${s} ${p}`).join(", ")}.` : "";
    $("result").textContent = hand.contract ?
      `${contractWords(hand.contract)}: ${result?.made ? "made" : "set"}.${taken} ${unit}: ${delta || "none"}.` :
      "Thrown in: every seat passed.";
    const seed = state.seeds?.[k];
    $("seed-note").textContent = seed != null && state.practice ?
      `Deal seed ${seed} (a practice table: the same seed deals the same hand).` : "";
    drawBotReasons(k);
    $("replay").hidden = true;
    $("replay-button").setAttribute("aria-expanded", "false");
    $("replay-button").hidden = !hand.contract;
    document.body.dataset.analysis = "pending";
    // The person's grades, for a game played here (a loaded record is no one's).
    $("grades-box").hidden = !state.atTable;
    if (state.atTable) showGrades(k);
    const analysis = hand.contract ? analyzeHand(hand) : Promise.resolve(null);
    const advice = adviseCalls(hand);
    try {
      const [a] = await Promise.all([analysis, advice]);
      if (state.shown?.index !== k) return;
      drawAnalysis(a);
      document.body.dataset.analysis = "shown";
    } catch (err) {
      showError(err);
      document.body.dataset.analysis = "error";
    }
  }

  // ------------------------------------------- the person's decisions, graded

  /** The grades (GradeGame's HandGrades) of finished hands ks, each asked once: the
   * finished hands' record, only those hands graded, with the coaching options. */
  function gradesOf(ks) {
    const grades = state.grades || (state.grades = {});
    const missing = ks.filter((k) => !grades[k]);
    if (missing.length) {
      const asked = rpc("GradeGame", T42Coach.gradeRequest(recordToProto(finishedRecord()), missing))
        .then((answer) => Object.fromEntries((answer.hands || []).map((h) => [h.hand || 0, h])));
      for (const k of missing) grades[k] = asked.then((byHand) => byHand[k]);
      asked.catch(() => { for (const k of missing) delete grades[k]; });
    }
    return Promise.all(ks.map((k) => grades[k]));
  }

  const fixed = (x, places = 2) => Number(x || 0).toFixed(places);
  const signed = (x, places = 2) => `${Number(x || 0) >= 0 ? "+" : "-"}${Math.abs(Number(x || 0)).toFixed(places)}`;
  const DECISION_OF_ENUM = { DECISION_KIND_CALL: "call", DECISION_KIND_DECLARATION: "declaration",
    DECISION_KIND_DISCARD: "discard", DECISION_KIND_PLAY: "play" };

  /** What a graded decision gave up against the best option, in words: in points (tricks)
   * and in expected marks, each with its paired 95% interval. */
  function lossWords(d, unit) {
    const range = (l) => (l.exact ? "exact" : l.low != null ? `95% ${fixed(l.low)} to ${fixed(l.high)}` : "no interval");
    const parts = [];
    if (d.loss) parts.push(`${fixed(d.loss.value)} ${unit} (${range(d.loss)})`);
    if (d.marksLoss) parts.push(`${fixed(d.marksLoss.value)} marks (${range(d.marksLoss)})`);
    return parts.join(", ");
  }

  /** The person's calls and plays of finished hand k, each graded from its seat's view
   * (mistake or fine; for a mistake the better option and what the choice gave up), the
   * price of hidden information its plays paid, and the hand's luck for the person's
   * side. */
  async function showGrades(k) {
    const body = $("grades").tBodies[0];
    body.innerHTML = "";
    $("grades-summary").textContent = "Grading your calls and plays\u2026";
    document.body.dataset.grades = "pending";
    try {
      const [h] = await gradesOf([k]);
      if (state.shown?.index !== k) return;
      drawGrades(h);
      document.body.dataset.grades = "shown";
    } catch (err) {
      if (state.shown?.index !== k) return;
      $("grades-summary").textContent = "";
      document.body.dataset.grades = "error";
      showError(err);
    }
  }

  function drawGrades(h) {
    const me = state.settings?.seat || "S";
    const mine = T42Coach.personOf(h, me);
    const unit = mine.unit;
    const body = $("grades").tBodies[0];
    body.innerHTML = "";
    let n = 0;
    for (const d of (h.decisions || []).filter((x) => x.seat === SEAT_ENUM[me])) {
      n += 1;
      const kind = DECISION_OF_ENUM[d.kind];
      const method = d.method || "";
      const grade = method === "GRADE_METHOD_UNGRADED" ? "not graded" : method === "GRADE_METHOD_FORCED" ? "forced" :
        d.mistake ? "mistake" : "fine";
      const what = kind === "play" ? `play, trick ${d.trick || 0}` : kind === "declaration" ? "trump" : kind;
      // The better option when the choice gave something up on these deals (a call that
      // risks less than the advice gives up nothing: its loss is below 0).
      const gaveUp = (d.loss?.value || 0) > 0 || (d.marksLoss?.value || 0) > 0;
      const better = method === "GRADE_METHOD_UNGRADED" ? (d.note || "") : !gaveUp ? "\u2013" :
        d.best && d.best !== d.choice ? `${d.best}: yours gave up ${lossWords(d, unit)}` :
          `${d.bestForMake} (likelier to reach your side's goal): yours gave up ${lossWords(d, unit)}`;
      body.append(el("tr", {
        class: d.mistake ? "mistake" : "", "data-kind": kind, "data-index": String(d.index || 0),
        "data-choice": d.choice, "data-grade": grade, "data-best": d.best || "",
        "data-loss": d.loss ? fixed(d.loss.value) : "", "data-marks-loss": d.marksLoss ? fixed(d.marksLoss.value) : "",
      }, `<td>${n}</td><td>${esc(what)}</td><td>${esc(d.choice)}</td>` +
        `<td class="grade">${grade}</td><td class="better">${esc(better)}</td>`));
    }
    const mood = mine.luck > 0.005 ? "lucky" : mine.luck < -0.005 ? "unlucky" : "neither lucky nor unlucky";
    const mistakes = `${mine.mistakes} mistake${mine.mistakes === 1 ? "" : "s"}`;
    $("grades-summary").innerHTML = `${mine.decisions} of your decisions graded, ${mistakes}. ` +
      (h.contract ? `<span id="grades-information" data-price="${fixed(mine.price)}">Hidden hands: your plays paid ${fixed(mine.price)} ${unit}</span> ` +
        "on average over your deals for not seeing the other hands (the price of hidden information, which no play can avoid). " +
        `<span id="grades-luck" data-luck="${fixed(mine.luck)}">Luck: ${signed(mine.luck)} ${unit} for your side (${mood})</span>, ` +
        `the deal's share of the hand's double-dummy change (in the declaring side's ${unit}: from ${h.ddStart || 0} at the start to ${h.finalValue || 0}, ` +
        `skill ${signed(h.skill)} + information ${signed(h.information)} + luck ${signed(h.luck)} = ${signed(h.ddChange || 0, 0)}).` :
        "No play: the hand was thrown in.") +
      ` Over ${T42Coach.options.deals} deals of seed ${T42Coach.options.seed} a play, bid advice over ${T42Coach.options.adviceDeals} a call; a mistake is a loss whose 95% interval lies above 2 points (half a trick) or a quarter of a mark.`;
  }

  /** At the game's end: the person's decisions, mistakes, loss, price of hidden
   * information and luck hand by hand. */
  async function showGameGrades() {
    const box = $("game-grades");
    box.hidden = false;
    const body = $("game-grades-table").tBodies[0];
    body.innerHTML = "";
    $("game-grades-summary").textContent = "Grading your game\u2026";
    document.body.dataset.gameGrades = "pending";
    const run = state.run;
    try {
      const n = finishedRecord().hands.length;
      const hands = await gradesOf([...Array(n).keys()]);
      if (run !== state.run) return;
      const me = state.settings?.seat || "S";
      const mine = hands.map((h) => T42Coach.personOf(h, me));
      if (state.table) T42Coach.keep(state.table, mine);
      const total = { decisions: 0, mistakes: 0, marksLoss: 0, loss: 0, price: 0, luck: 0 };
      for (const m of mine) {
        for (const key of Object.keys(total)) total[key] += m[key];
        body.append(el("tr", { "data-hand": String(m.hand + 1) },
          `<td>${m.hand + 1}</td><td>${m.decisions}</td><td>${m.mistakes}</td><td>${fixed(m.marksLoss)}</td>` +
          `<td>${fixed(m.loss)}</td><td>${fixed(m.price)}</td><td>${signed(m.luck)}</td>`));
      }
      const perHand = (x) => fixed(n ? x / n : 0);
      $("game-grades-summary").innerHTML = `<span id="game-grades-total" data-decisions="${total.decisions}" data-mistakes="${total.mistakes}" ` +
        `data-marks-loss="${perHand(total.marksLoss)}" data-price="${perHand(total.price)}" data-luck="${fixed(total.luck)}">${total.decisions} decisions graded, ` +
        `${total.mistakes} mistake${total.mistakes === 1 ? "" : "s"}; ${perHand(total.marksLoss)} expected marks lost a hand ` +
        `(${perHand(total.loss)} points or tricks); ${perHand(total.price)} points or tricks a hand paid for not seeing the other hands; ` +
        `luck ${signed(total.luck)} for your side over ${n} hand${n === 1 ? "" : "s"}.</span>`;
      document.body.dataset.gameGrades = "shown";
    } catch (err) {
      if (run !== state.run) return;
      $("game-grades-summary").textContent = "";
      document.body.dataset.gameGrades = "error";
      showError(err);
    }
  }

  function positionOf(hand) {
    // A position holds the Moon declarer's seven after the discard (the record: as dealt).
    const hands = { ...hand.hands };
    const declarer = hand.contract.declarer;
    if (hand.widow && hand.contract.discard) {
      hands[declarer] = hands[declarer].concat([hand.widow]).filter((t) => t !== hand.contract.discard);
    }
    const position = {
      game: state.record.game === "moon" ? "GAME_MOON" : "GAME_FORTY_TWO",
      hands: handsToProto(hands), contract: contractToProto(hand.contract), plays: hand.plays,
    };
    if (hand.widow) {
      position.widow = hand.widow;
      position.discard = hand.contract.discard;
    }
    return position;
  }

  async function analyzeHand(hand) {
    const answer = await rpc("AnalyzeHand", { position: positionOf(hand) });
    return answer.analysis;
  }

  function drawAnalysis(a) {
    const body = $("analysis").tBodies[0];
    body.innerHTML = "";
    if (!a) {
      $("analysis-summary").textContent = "No play: the hand was thrown in.";
      return;
    }
    const unit = a.unit === "VALUE_UNIT_TRICKS" ? "tricks" : "points";
    $("analysis-summary").textContent =
      `Double dummy at the opening lead: ${a.value ?? 0} ${unit} (${a.makes ? "makes" : "is set"}); result ${a.result ?? 0}. ` +
      (a.seats || []).filter((s) => s.costlyPlays).map((s) => `${SEAT_WORD[SEAT_OF_ENUM[s.seat]]} lost ${s.totalCost} in ${s.costlyPlays} play${s.costlyPlays === 1 ? "" : "s"}`).join("; ");
    for (const p of a.plays || []) {
      const cost = p.cost || 0;
      const row = el("tr", { class: cost ? "costly" : "", "data-index": String(p.index ?? 0), "data-tile": p.tile, "data-cost": String(cost) },
        `<td>${(p.index ?? 0) + 1}</td><td>${p.trick ?? 0}</td><td>${SEAT_OF_ENUM[p.seat]}</td><td>${esc(p.tile)}</td>` +
        `<td>${cost}</td><td>${esc((p.alternatives || []).join(" "))}</td>`);
      body.append(row);
    }
  }

  /** For every call of a finished hand, what bid advice would have said (that seat's tiles, the calls before it). */
  async function adviseCalls(hand) {
    const body = $("call-advice").tBodies[0];
    body.innerHTML = "";
    const calls = hand.auction || [];
    const rows = calls.map((call, i) => {
      const row = el("tr", { "data-index": String(i), "data-seat": call.seat },
        `<td>${SEAT_WORD[call.seat]}</td><td class="call">${esc(bidWords(call.bid))}</td><td class="advice">\u2026</td>`);
      body.append(row);
      return row;
    });
    await Promise.all(calls.map(async (call, i) => {
      const request = {
        hand: hand.hands[call.seat], seat: SEAT_ENUM[call.seat], auction: calls.slice(0, i).map(auctionCall),
        ...adviceGame(), ...T42Play.callAdviceOptions,
      };
      const answer = await rpc("BidAdvice", request);
      const words = recommendationWords(answer.advice);
      rows[i].querySelector(".advice").textContent = words;
      rows[i].dataset.advice = words;
    }));
  }

  const auctionCall = (c) => ({ seat: SEAT_ENUM[c.seat], bid: c.bid === "pass" ? 0 : c.bid === "plunge" ? 168 : c.bid === "splash" ? 84 : c.bid });

  function adviceGame() {
    return isMoon() ? { game: "GAME_MOON", players: players() } : {};
  }

  function declarationName(d) {
    if (!d) return "";
    const kind = KIND_OF_ENUM[d.kind];
    return kind === "plunge" || kind === "splash" ? kind : TRUMP_OF_ENUM[d.declaration] || "";
  }

  function recommendationWords(advice) {
    const rec = advice?.recommendation || {};
    if (rec.isPass || !rec.chance) return "pass";
    const p = Number(rec.chance.pMakeCalibrated ?? rec.chance.pMake ?? 0);
    return `${bidWords(Number(rec.chance.bid))} ${declarationName(rec.declaration)} (P(make) ${percent(p)})`;
  }

  // --------------------------------------------------------------- replay

  function drawReplay() {
    const k = state.shown.index;
    const hand = state.record.hands[k];
    const step = state.shown.step;
    const total = hand.plays.length;
    $("replay-step").textContent = `play ${step} of ${total}`;
    document.body.dataset.replayStep = String(step);
    const who = state.whos?.[k] || ownersOf(hand);
    const pos = positions(state.settings?.seat || "S");
    const box = $("replay-table");
    const played = new Set(hand.plays.slice(0, step));
    for (const [where, seat] of Object.entries({ top: null, left: null, right: null, bottom: null, ...pos })) {
      const node = box.querySelector(`.seat[data-pos="${where}"]`);
      node.innerHTML = "";
      node.hidden = !seat;
      if (!seat) continue;
      node.dataset.seat = seat;
      node.append(el("div", { class: "name" }, `${SEAT_WORD[seat]}${hand.contract?.declarer === seat ? " (declarer)" : ""}`));
      const tiles = el("div", { class: "hand open" });
      let mine = hand.hands[seat] || [];
      if (hand.widow && hand.contract?.declarer === seat && hand.contract.discard) {
        mine = mine.concat([hand.widow]).filter((t) => t !== hand.contract.discard);
      }
      for (const tile of [...mine].sort((a, b) => b.localeCompare(a))) {
        if (played.has(tile)) continue;
        tiles.append(el("div", { class: "tile", "data-tile": tile, role: "img", "aria-label": tile }, dominoSvg(tile)));
      }
      node.append(tiles);
    }
    const tricks = replayTricks(k, step);
    drawTrick(box.querySelector(".trick"), tricks, (i) => who[i]);
  }

  /** Tricks of a finished hand up to a step: tiles from the record, winners from the service's progress. */
  function replayTricks(k, step) {
    const full = tricksOf({ progress: state.progress?.[k] });
    const out = [];
    let n = 0;
    for (const t of full) {
      if (n >= step) break;
      const take = Math.min(t.tiles.length, step - n);
      out.push({ ...t, tiles: t.tiles.slice(0, take), winner: take === t.tiles.length ? t.winner : null });
      n += take;
    }
    return out;
  }

  function ownersOf(hand) {
    return hand.plays.map((tile) => SEATS.find((s) => (hand.hands[s] || []).includes(tile) ||
      (hand.widow === tile && hand.contract?.declarer === s)));
  }

  function replayTo(step) {
    if (!state.shown) return;
    const total = state.record.hands[state.shown.index].plays.length;
    state.shown.step = Math.max(0, Math.min(total, step));
    drawReplay();
  }

  // ------------------------------------------------------------- hint, advice

  function myView() {
    const hand = lastHand();
    const me = state.settings.seat;
    const view = {
      seat: SEAT_ENUM[me], game: isMoon() ? "GAME_MOON" : "GAME_FORTY_TWO",
      hands: { [HAND_FIELD[me]]: liveTiles() }, contract: contractToProto(hand.contract), plays: hand.plays,
      auction: hand.auction.map(auctionCall),
    };
    if (isMoon()) view.players = players();
    if (state.live.widow && state.live.discard) {
      view.widow = state.live.widow;
      view.discard = state.live.discard;
    }
    return view;
  }

  /** A hint's figures for the viewer's side. The service gives the declaring side's
   * P(make) and mean value; a defender sees the chance of setting the contract
   * (100% less the declarer's P(make), both rounded as shown) and what the defenders
   * take (42 points or 7 tricks less the declaring side's). */
  function hintSide(h) {
    const unit = h.unit === "VALUE_UNIT_TRICKS" ? "tricks" : "points";
    const total = unit === "tricks" ? 7 : 42;
    const declaring = Boolean(h.declaring);
    const made = (m) => Math.round((m.pMake || 0) * 100);
    const meanName = `your side's ${unit} (mean)`;
    if (declaring) {
      return { declaring, unit, chance: "P(make)", meanName,
        figures: (m) => ({ chance: made(m), mean: Number(m.mean || 0) }),
        note: `You declare: P(make) is the chance that your side makes the contract, the mean the ${unit} it takes.` };
    }
    const together = players() === 3 ? " (you and the other player against the declarer)" : "";
    return { declaring, unit, chance: "P(set)", meanName,
      figures: (m) => ({ chance: 100 - made(m), mean: total - Number(m.mean || 0) }),
      note: `You defend: P(set) is the chance that your side${together} sets the contract ` +
        `(100% less the declarer's P(make)), the mean the ${unit} your side takes (${total} less the declarer's).` };
  }

  async function askHint() {
    if (state.phase !== "play") return;
    const hand = lastHand();
    const box = $("hint");
    box.hidden = false;
    box.innerHTML = "<p>Scoring the deals\u2026</p>";
    document.body.dataset.hint = "pending";
    try {
      // The seat-view search values a move with the player's own next play made once for
      // every deal it cannot tell apart (a double-dummy hint makes it deal by deal).
      const seatView = $("hint-seat-view").checked;
      const h = await rpc("Hint", { view: myView(), ...T42Play.hintOptions,
        ...(seatView ? { search: "postponed", depth: 1 } : {}) });
      if (state.phase !== "play" || hand !== lastHand()) return;
      const side = hintSide(h);
      const moves = Object.fromEntries((h.moves || []).map((m) => [m.tile, side.figures(m)]));
      state.hint = { plays: hand.plays.length, moves, best: h.best || [], side };
      const count = Number(h.count ?? 0).toLocaleString("en-US");
      const exact = h.method === "HINT_METHOD_ENUMERATED";
      const deals = exact ? `all ${count} consistent deals (exact)` :
        `${Number(h.deals ?? 0).toLocaleString("en-US")} of ${count} consistent deals, sampled (seed ${h.seed ?? 0})`;
      box.innerHTML = `<h2>Hint</h2><p class="note" id="hint-side">${esc(side.note)}</p>` +
        `<p class="note" id="hint-note" data-deals="${h.deals ?? 0}" data-method="${exact ? "exact" : "sampled"}" data-search="${esc(h.search || "double-dummy")}">Over ${deals}${h.search === "postponed" ? ", your next play made once for the deals you cannot tell apart" : ", every hand open"}.</p>` +
        `<table id="hint-table" data-side="${side.declaring ? "declaring" : "defending"}"><thead><tr><th scope="col">tile</th>` +
        `<th scope="col" class="chance">${side.chance}</th><th scope="col" class="mean">${esc(side.meanName)}</th></tr></thead><tbody>` +
        (h.moves || []).map((m) => `<tr data-tile="${m.tile}"${m.best ? ' class="best"' : ""}><th scope="row">${m.tile}${m.best ? " (best)" : ""}</th>` +
          `<td class="chance">${moves[m.tile].chance}%</td><td class="mean">${moves[m.tile].mean.toFixed(1)}</td></tr>`).join("") +
        "</tbody></table>";
      document.body.dataset.hint = "shown";
      drawTable();
    } catch (err) {
      box.innerHTML = "";
      box.hidden = true;
      document.body.dataset.hint = "error";
      showError(err);
    }
  }

  /** Why some cells of the bid advice are blank (–): the declarations that need marks,
   * the all-or-nothing ones that have no mean, and the calls that are one bid each. */
  function blanksNote(names, noMean, nelloMarks) {
    const has = (n) => names.includes(n);
    const lines = [];
    const marks = (k) => `${k} mark${k === 1 ? "" : "s"}`;
    const needs = [has("sevens") ? `sevens on a bid of ${marks(1)} or more` : "",
      has("nello") ? `nello on ${marks(nelloMarks)} or more (house rule)` : ""].filter(Boolean);
    if (needs.length) lines.push(`One may name ${needs.join(", and ")}: lower bids are blank.`);
    if (noMean.length) {
      const list = noMean.length === 1 ? noMean[0] : `${noMean.slice(0, -1).join(", ")} and ${noMean[noMean.length - 1]}`;
      const one = noMean.length === 1;
      lines.push(`${list[0].toUpperCase()}${list.slice(1)} ${one ? "has" : "have"} no mean: ${one ? "it makes" : "they make"} only ` +
        `by taking every trick${noMean.includes("nello") ? " (nello: by losing every trick)" : ""}.`);
    }
    const calls = ["plunge", "splash"].filter(has);
    if (calls.length) {
      lines.push(`${calls.map((c) => `${c === "plunge" ? "Plunge" : "Splash"} is a call of ${c === "plunge" ? "4" : "2"} marks`).join(", ")}: ` +
        "only that bid, when it is on offer.");
    }
    return lines.length ? `<p class="note" id="advice-blanks">${lines.join(" ")}</p>` : "";
  }

  /** A table wider than its box scrolls sideways (on a phone): a line above it says so,
   * and the box's data-overflow is "1" (else "0") once measured. */
  function watchScroll(region) {
    if (!region || region.dataset.watched) return;
    region.dataset.watched = "1";
    const cue = el("p", { class: "note scroll-cue", "aria-hidden": "true", hidden: true },
      "Scroll sideways for more \u2192");
    region.before(cue);
    const update = () => {
      const over = region.scrollWidth > region.clientWidth + 1;
      region.dataset.overflow = over ? "1" : "0";
      cue.hidden = !over;
    };
    const observer = new ResizeObserver(update);
    observer.observe(region);
    if (region.firstElementChild) observer.observe(region.firstElementChild);
    update();
  }

  async function askAdvice() {
    if (state.phase !== "call") return;
    const hand = lastHand();
    const box = $("advice");
    box.hidden = false;
    box.innerHTML = "<p>Dealing the other hands\u2026</p>";
    document.body.dataset.advice = "pending";
    try {
      // Played out by seat-view players, or double dummy (with one opening lead or not).
      const playout = $("advice-playout").checked && offersFixedLead();
      const fixedLead = !playout && $("advice-fixed-lead").checked && offersFixedLead();
      const request = { hand: state.live.mine, seat: SEAT_ENUM[state.settings.seat],
        auction: hand.auction.map(auctionCall), ...adviceGame(),
        ...(playout ? { ...T42Play.playoutAdviceOptions, search: "playout" } : T42Play.adviceOptions),
        ...(fixedLead ? { fixedLead: true } : {}) };
      const answer = await rpc("BidAdvice", request);
      if (state.phase !== "call" || hand !== lastHand()) return;
      const advice = answer.advice || {};
      const offered = new Set((state.check?.legal?.calls || []).map((c) => callFromProto({ ...c, seat: "SEAT_NORTH" }).bid)
        .map((b) => (b === "plunge" ? 168 : b === "splash" ? 84 : b)));
      const decls = advice.declarations || [];
      const bids = [...new Set(decls.flatMap((d) => (d.bids || []).map((b) => Number(b.bid))))]
        .filter((b) => offered.has(b)).sort((a, b) => a - b);
      // A 42 declaration below the marks it needs (sevens 1, nello the house rule) cannot
      // be named at that bid: its cell is blank, whatever the deals say.
      const nelloMarks = state.record.rules?.nello_min_marks ?? 2;
      const needs = isMoon() ? {} : { sevens: 42, nello: 42 * nelloMarks };
      const blank = '<td class="na">\u2013</td>';
      const rows = decls.map((d) => {
        const name = declarationName(d.declaration);
        const byBid = Object.fromEntries((d.bids || []).map((b) => [Number(b.bid), b]));
        const cell = (b) => (byBid[b] && b >= (needs[name] || 0) ?
          `<td data-bid="${b}">${percent(byBid[b].pMakeCalibrated ?? byBid[b].pMake)}</td>` : blank.replace("<td", `<td data-bid="${b}"`));
        return `<tr data-declaration="${name}"><th scope="row">${name}</th>` +
          (d.mean != null ? `<td class="mean">${Number(d.mean).toFixed(1)}</td>` : blank.replace('class="na"', 'class="mean na"')) +
          bids.map(cell).join("") + "</tr>";
      }).join("");
      box.innerHTML = `<h2>Bid advice</h2><p id="advice-recommendation"><b>${esc(recommendationWords(advice))}</b></p>` +
        `<p class="note" id="advice-note" data-deals="${advice.deals ?? 0}">P(make) per declaration at the bids on offer, over ${advice.deals ?? 0} random deals of the other tiles (seed ${advice.seed ?? 0})${advice.fixedLead ? ", the declarer holding one opening lead for every deal" : ""}${advice.search === "playout" ? `, each played out by players who see only their own tiles (${advice.innerDeals ?? 0} deals a decision; defenders play the same way)${(advice.screened || []).length ? `; only the declarations double dummy ranks first (<span id="advice-screened">not played out: ${esc((advice.screened || []).map(declarationName).join(", "))}</span>)` : ""}` : ""}; the mean, the ${isMoon() ? "tricks" : "points"} the declaring side takes.</p>` +
        `<div class="scroll" tabindex="0" role="region" aria-label="P(make) per declaration and bid"><table id="advice-table"><thead><tr><th scope="col">trump</th><th scope="col">mean</th>${bids.map((b) => `<th scope="col">${b}</th>`).join("")}</tr></thead><tbody>${rows}</tbody></table></div>` +
        blanksNote(decls.map((d) => declarationName(d.declaration)), decls.filter((d) => d.mean == null).map((d) => declarationName(d.declaration)), nelloMarks);
      watchScroll(box.querySelector(".scroll"));
      document.body.dataset.advice = "shown";
    } catch (err) {
      box.hidden = true;
      document.body.dataset.advice = "error";
      showError(err);
    }
  }

  // ------------------------------------------------------- start, load, share

  function readSettings() {
    const kind = document.querySelector("input[name='game']:checked").value;
    const game = kind === "42" ? "42" : "moon";
    const n = kind === "moon3" ? 3 : 4;
    let seat = $("seat").value;
    if (n === 3 && seat === "W") seat = "S";
    let shaker = $("first-shaker").value;
    if (n === 3 && shaker === "W") shaker = "N";
    const seedText = $("game-seed").value.trim();
    const gameSeed = seedText === "" ? null : Number(seedText);
    const rules = {};
    if (game === "42") {
      if ($("all-pass-42").value !== "forced") rules.all_pass = $("all-pass-42").value;
      if ($("splash").checked) rules.splash = true;
      if ($("nello-min").value !== "2") rules.nello_min_marks = Number($("nello-min").value);
    } else {
      if ($("all-pass-moon").value !== "forced") rules.all_pass = $("all-pass-moon").value;
      if ($("min-bid").value !== "4") rules.min_bid = Number($("min-bid").value);
      if ($("score").value !== "points") rules.score = $("score").value;
    }
    const random = new Uint32Array(1);
    crypto.getRandomValues(random);
    return {
      game, players: n, seat, shaker, rules, gameSeed, bot: $("bot").value,
      pause: Math.max(0, Number($("pause").value) || 0),
      botSeed: gameSeed != null ? gameSeed : random[0] % 1000000,
    };
  }

  // The program bots the server was started with (t42 serve --bot), per game: offered
  // after the built-in bots (ListBots; a client never names a program to run).
  const programBots = { "42": [], moon: [] };

  async function loadProgramBots() {
    for (const [game, enumName] of [["42", "GAME_FORTY_TWO"], ["moon", "GAME_MOON"]]) {
      try {
        const answer = await rpc("ListBots", { game: enumName });
        programBots[game] = (answer.bots || []).filter((b) => b.program).map((b) => b.name);
      } catch (err) { programBots[game] = []; }
    }
    syncSetup();
  }

  function syncBots(kind) {
    const select = $("bot");
    select.querySelectorAll("option[data-program]").forEach((o) => o.remove());
    for (const name of programBots[kind === "42" ? "42" : "moon"]) {
      select.append(el("option", { value: name, "data-program": "1" }, `${esc(name)} (a program bot of this server)`));
    }
  }

  function syncSetup() {
    const kind = document.querySelector("input[name='game']:checked").value;
    syncBots(kind);
    $("rules-link").hash = kind === "42" ? "" : "moon";
    document.querySelector(".rules-42").hidden = kind !== "42";
    document.querySelector(".rules-moon").hidden = kind === "42";
    for (const id of ["seat", "first-shaker"]) {
      const west = $(id).querySelector("option[value='W']");
      west.disabled = kind === "moon3";
      if (kind === "moon3" && $(id).value === "W") $(id).value = id === "seat" ? "S" : "N";
    }
  }

  async function startGame(event) {
    event?.preventDefault();
    const s = readSettings();
    state.settings = s;
    state.record = { game: s.game, rules: s.rules, first_shaker: s.shaker, hands: [] };
    if (s.game === "moon") state.record = { game: "moon", players: s.players, rules: s.rules, first_shaker: s.shaker, hands: [] };
    state.pad = null;
    state.table = null;   // a new table for this game
    state.grades = {};
    state.atTable = true;
    $("game-grades").hidden = true;
    state.seeds = [];
    state.whos = [];
    state.progress = [];
    state.decisions = [];
    state.actions = 0;
    $("final").hidden = true;
    $("setup").hidden = true;
    $("game").hidden = false;
    $("log").innerHTML = "";
    history.replaceState(null, "", location.pathname);
    await startHand();
  }

  function download() {
    const text = JSON.stringify(finishedRecord(), null, 2) + "\n";
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const a = el("a", { href: url, download: `texas42-game-${state.record.game}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  async function copyLink() {
    const link = `${location.origin}${location.pathname}#game=${toBase64Url(JSON.stringify(finishedRecord()))}`;
    $("status").textContent = "A link to this game is in the address bar" + (navigator.clipboard ? " and on the clipboard." : ".");
    history.replaceState(null, "", link);
    try { await navigator.clipboard?.writeText(link); } catch (err) { /* no clipboard: the address bar has it */ }
  }

  /** A finished (or part-played) game record, to replay and analyse its hands. */
  async function loadRecord(text) {
    clearError();
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      showError({ method: "record", message: `not valid JSON: ${err.message}` });
      return;
    }
    const record = { game: doc.game === "moon" ? "moon" : "42", rules: doc.rules || {}, first_shaker: doc.first_shaker, hands: doc.hands || [] };
    if (doc.players) record.players = doc.players;
    if (record.game === "moon" && !record.players) record.players = Object.keys(doc.hands?.[0]?.hands || {}).length === 3 ? 3 : 4;
    const previous = { record: state.record, settings: state.settings };
    state.run++;
    state.record = record;
    state.live = null;
    state.settings = { ...(state.settings || {}), seat: state.settings?.seat || "S", game: record.game, players: players() };
    try {
      state.pad = await rpc("CheckGame", { record: recordToProto(record) });
    } catch (err) {
      Object.assign(state, previous);
      showError(err);
      return;
    }
    state.seeds = [];
    state.grades = {};
    state.atTable = false;   // a record loaded to replay: no one's grades to show
    $("game-grades").hidden = true;
    state.whos = record.hands.map(ownersOf);
    state.progress = [];
    // Each hand's tricks, winners and points as the service counts them.
    for (let k = 0; k < record.hands.length; k++) {
      if (!record.hands[k].contract) continue;
      const prefix = { ...record, hands: record.hands.slice(0, k + 1) };
      const check = await rpc("CheckGame", { record: recordToProto(prefix) });
      state.progress[k] = check.progress;
    }
    $("setup").hidden = true;
    $("game").hidden = false;
    $("load-panel").hidden = true;
    $("load-toggle").setAttribute("aria-expanded", "false");
    $("log").innerHTML = "";
    state.check = null;
    const going = state.pad.winner == null;
    setPhase(going ? "review" : "game-over");
    $("next-panel").hidden = !going;
    $("next-hand").hidden = going;
    $("continue-game").hidden = !going;
    $("continue-note").hidden = !going;
    announce(`Loaded a game of ${record.hands.length} hand${record.hands.length === 1 ? "" : "s"}.`);
    drawTable();
    drawChoices();
    drawPad();
    $("download").disabled = false;
    $("copy-link").disabled = false;
    if (record.hands.length) await showHand(record.hands.length - 1);
    if (state.pad.winner != null) showFinal();
    else $("status").textContent = "A game in progress: pick a hand on the score pad to see it.";
  }

  /** A loaded game still going on: its next hand, with the seat and bots of the setup. */
  function continueGame(event) {
    event?.preventDefault();
    const s = readSettings();
    s.game = state.record.game;
    s.players = players();
    if (s.players === 3 && s.seat === "W") s.seat = "S";
    state.settings = s;
    state.table = null;   // a new table, which carries the loaded hands on the record's word
    state.atTable = true;   // the person's seat from here on (the loaded hands: graded from it too)
    state.actions = 0;
    state.continuing = false;
    $("next-hand").hidden = false;
    $("continue-game").hidden = true;
    $("continue-note").hidden = true;
    $("setup").hidden = true;
    $("game").hidden = false;
    startHand();
  }

  /** A game under way: a hand in play, or a hand over with the game still going. */
  const gameUnderway = () => Boolean(state.live) || state.phase === "hand-over";
  let leaving = false;

  /** New game while a game is under way asks first (a dialog the person may cancel).
   * Registered before New game's other listeners: until the person confirms, they do not run. */
  function guardNewGame() {
    $("new-game").addEventListener("click", (event) => {
      if (leaving || !gameUnderway()) {
        leaving = false;
        return;
      }
      event.stopImmediatePropagation();
      const dialog = $("leave-dialog");
      dialog.returnValue = "";
      dialog.showModal();
    });
    // Cancel or Escape: the game goes on as it was; Leave: New game as if it were clicked.
    $("leave-dialog").addEventListener("close", () => {
      if ($("leave-dialog").returnValue !== "leave") return;
      leaving = true;
      $("new-game").click();
    });
  }

  function init() {
    guardNewGame();
    document.querySelectorAll("input[name='game']").forEach((r) => r.addEventListener("change", syncSetup));
    syncSetup();
    loadProgramBots();
    $("setup").addEventListener("submit", (event) => (state.continuing ? continueGame(event) : startGame(event)));
    $("new-game").addEventListener("click", () => {
      state.run++;
      state.live = null;
      setPhase("setup");
      $("game").hidden = true;
      $("setup").hidden = false;
      $("seat").focus();
    });
    $("next-hand").addEventListener("click", () => startHand());
    // A loaded game still going on: the setup form, then its next hand.
    $("continue-game").addEventListener("click", () => {
      state.continuing = true;
      $("setup-title").textContent = "Go on with the loaded game";
      $("start").textContent = "Continue the game";
      document.querySelectorAll("#setup fieldset").forEach((f) => { f.hidden = true; });
      $("game").hidden = true;
      $("setup").hidden = false;
      $("seat").focus();
    });
    $("new-game").addEventListener("click", () => {
      state.continuing = false;
      $("setup-title").textContent = "New game";
      $("start").textContent = "Start the game";
      document.querySelector("#setup fieldset").hidden = false;
      syncSetup();
    });
    $("hint-button").addEventListener("click", askHint);
    $("advice-button").addEventListener("click", askAdvice);
    $("download").addEventListener("click", download);
    $("copy-link").addEventListener("click", copyLink);
    $("load-toggle").addEventListener("click", () => {
      const show = $("load-panel").hidden;
      $("load-panel").hidden = !show;
      $("load-toggle").setAttribute("aria-expanded", String(show));
      if (show) $("load-input").focus();
    });
    $("load-go").addEventListener("click", () => loadRecord($("load-input").value));
    $("load-file").addEventListener("change", async () => {
      const file = $("load-file").files[0];
      if (file) await loadRecord(await file.text());
    });
    $("replay-button").addEventListener("click", () => {
      const show = $("replay").hidden;
      $("replay").hidden = !show;
      $("replay-button").setAttribute("aria-expanded", String(show));
      if (show) replayTo(0);
    });
    $("replay-first").addEventListener("click", () => replayTo(0));
    $("replay-back").addEventListener("click", () => replayTo(state.shown.step - 1));
    $("replay-forward").addEventListener("click", () => replayTo(state.shown.step + 1));
    $("replay-last").addEventListener("click", () => replayTo(Infinity));
    $("replay").addEventListener("keydown", (event) => {
      const moves = { ArrowLeft: -1, ArrowRight: 1 };
      if (event.key in moves) { event.preventDefault(); replayTo(state.shown.step + moves[event.key]); }
      else if (event.key === "Home") { event.preventDefault(); replayTo(0); }
      else if (event.key === "End") { event.preventDefault(); replayTo(Infinity); }
    });
    document.querySelectorAll("#game .scroll").forEach(watchScroll);
    T42Play.state = () => ({ phase: state.phase, record: state.record, live: state.live, check: state.check, pad: state.pad });
    T42Play.finishedRecord = () => finishedRecord();
    // The bots of the game from the next bot turn on (rule, advice, random).
    T42Play.setBot = (bot) => { state.settings.bot = bot; };
    T42Play.handSeed = handSeed;
    document.body.dataset.ready = "1";
    const match = location.hash.match(/^#game=([A-Za-z0-9_-]+)/);
    if (match) {
      let text = "";
      try { text = fromBase64Url(match[1]); } catch (err) { text = "not base64"; }
      loadRecord(text);
      return;
    }
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem(TABLE_KEY) || "null"); } catch (err) { saved = null; }
    if (saved?.token && saved.settings) {
      resumeTable(saved).catch((err) => { showError(err); setPhase("error"); });
    }
  }

  init();
})();

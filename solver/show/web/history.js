// The games this browser finished at the server's tables: their tokens are kept in this
// browser (coach.js) when a game is won, ListFinishedGames answers their records and
// score pads, and GradeGame grades the person's calls and plays of the hands not graded
// yet (the grades kept beside the tokens). Four charts over time (expected marks lost
// a hand, the make rate as declarer, the price of hidden information a hand, the luck a
// hand) are drawn as SVG here, from those figures only; the table of games says the
// same in numbers.
"use strict";

(() => {
  const { SEAT_ENUM, SEAT_OF_ENUM, $, el, escapeHtml: esc } = window.T42Common;
  const Coach = window.T42Coach;
  const SVG = "http://www.w3.org/2000/svg";

  const fixed = (x, places = 2) => Number(x || 0).toFixed(places);
  const signed = (x, places = 2) => `${Number(x || 0) >= 0 ? "+" : "-"}${Math.abs(Number(x || 0)).toFixed(places)}`;

  function showError(err) {
    const box = $("error");
    const v = err.violations?.[0];
    box.querySelector(".error-field").textContent = v ? v.field : err.method || "error";
    box.querySelector(".error-reason").textContent = v ? v.description : err.message;
    box.hidden = false;
  }

  /** The finished games of the kept tokens. A token the server cannot open (refused,
   * naming sealed[i]: another server's, or its table lost) is forgotten, and the rest
   * asked again. */
  async function listGames() {
    let tokens = Coach.finishedTokens();
    let forgotten = 0;
    for (;;) {
      if (!tokens.length) return { games: [], forgotten };
      try {
        const answer = await T42Common.rpc("ListFinishedGames", { sealed: tokens });
        return { games: answer.games || [], forgotten };
      } catch (err) {
        const match = /^sealed\[(\d+)\]$/.exec(err.violations?.[0]?.field || "");
        if (!match) throw err;
        Coach.dropFinished(tokens[Number(match[1])]);
        tokens = tokens.filter((_, i) => i !== Number(match[1]));
        forgotten += 1;
      }
    }
  }

  /** The person's grades of every hand of a finished game: those kept, the others graded
   * now (and kept). */
  async function gradesOf(game) {
    const seat = SEAT_OF_ENUM[game.seat];
    const kept = Coach.kept(game.sealed);
    const n = (game.record.hands || []).length;
    const missing = [...Array(n).keys()].filter((k) => !kept[k]);
    if (missing.length) {
      const answer = await T42Common.rpc("GradeGame", Coach.gradeRequest(game.record, missing));
      const mine = (answer.hands || []).map((h) => Coach.personOf(h, seat));
      Coach.keep(game.sealed, mine);
      for (const m of mine) kept[m.hand] = m;
    }
    return [...Array(n).keys()].map((k) => kept[k]);
  }

  /** A game's figures for the person: hands, result, made as declarer, mistakes, the
   * marks lost, the price of hidden information and the luck a hand. */
  function figuresOf(game, grades) {
    const seat = SEAT_OF_ENUM[game.seat];
    const hands = game.record.hands || [];
    const players = game.record.game === "GAME_MOON" && game.record.players === 3 ? 3 : 4;
    const side = players === 3 ? seat : seat === "N" || seat === "S" ? "NS" : "EW";
    let declared = 0;
    let made = 0;
    hands.forEach((h, k) => {
      if (h.contract && h.contract.declarer === SEAT_ENUM[seat]) {
        declared += 1;
        if (game.hands?.[k]?.made) made += 1;
      }
    });
    const sum = (key) => grades.reduce((t, g) => t + (g?.[key] || 0), 0);
    const n = hands.length || 1;
    return {
      token: game.sealed, finished: game.finished ? new Date(game.finished) : null,
      hands: hands.length, won: game.winner === side, score: game.score || {}, side,
      declared, made, mistakes: sum("mistakes"), decisions: sum("decisions"),
      marksLoss: sum("marksLoss") / n, price: sum("price") / n, luck: sum("luck") / n,
    };
  }

  // ------------------------------------------------------------------ charts

  /** A line chart of ``values`` (null: no point) over the games, oldest first: the
   * axes, a dashed zero line, the points (each with its value in a title), the ends of
   * the value range and the game numbers. */
  function chart(box, titleId, values, format) {
    box.innerHTML = "";
    const w = 320;
    const h = 170;
    const left = 44;
    const right = 10;
    const top = 12;
    const bottom = 26;
    const svg = document.createElementNS(SVG, "svg");
    const add = (parent, tag, attrs, text) => {
      const node = document.createElementNS(SVG, tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
      if (text != null) node.textContent = text;
      parent.append(node);
      return node;
    };
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-labelledby", titleId);
    const present = values.filter((v) => v != null);
    const summary = present.length ? `${present.length} game${present.length === 1 ? "" : "s"}: ` +
      values.map((v, i) => `game ${i + 1} ${v == null ? "none" : format(v)}`).join(", ") : "no game to show";
    add(svg, "desc", {}, summary);
    box.append(svg);
    add(svg, "line", { class: "axis", x1: left, y1: top, x2: left, y2: h - bottom });
    add(svg, "line", { class: "axis", x1: left, y1: h - bottom, x2: w - right, y2: h - bottom });
    if (!present.length) {
      add(svg, "text", { class: "empty", x: left + 10, y: (h - bottom) / 2 }, "nothing yet");
      return svg;
    }
    let low = Math.min(0, ...present);
    let high = Math.max(0, ...present);
    if (high - low < 1e-9) high = low + 1;
    const x = (i) => (values.length === 1 ? (left + w - right) / 2 : left + 12 + i * (w - right - left - 24) / (values.length - 1));
    const y = (v) => top + (high - v) * (h - top - bottom) / (high - low);
    if (low < 0 && high > 0) add(svg, "line", { class: "zero", x1: left, y1: y(0), x2: w - right, y2: y(0) });
    add(svg, "text", { x: 4, y: y(high) + 4 }, format(high));
    add(svg, "text", { x: 4, y: y(low) + 4 }, format(low));
    const points = values.map((v, i) => (v == null ? null : `${x(i).toFixed(1)},${y(v).toFixed(1)}`)).filter(Boolean);
    if (points.length > 1) add(svg, "polyline", { class: "line", points: points.join(" ") });
    values.forEach((v, i) => {
      if (v == null) return;
      const dot = add(svg, "circle", { class: "point", cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 4,
        "data-game": i + 1, "data-value": fixed(v, 4) });
      add(dot, "title", {}, `game ${i + 1}: ${format(v)}`);
    });
    const step = Math.max(1, Math.ceil(values.length / 8));
    values.forEach((_, i) => {
      if (i % step === 0 || i === values.length - 1) add(svg, "text", { x: x(i) - 4, y: h - 8 }, String(i + 1));
    });
    return svg;
  }

  function drawCharts(rows) {
    const old = [...rows].reverse();   // oldest first
    chart($("chart-loss"), "chart-loss-title", old.map((r) => r.marksLoss), (v) => fixed(v));
    chart($("chart-made"), "chart-made-title", old.map((r) => (r.declared ? r.made / r.declared : null)),
      (v) => `${Math.round(v * 100)}%`);
    chart($("chart-information"), "chart-information-title", old.map((r) => r.price), (v) => fixed(v));
    chart($("chart-luck"), "chart-luck-title", old.map((r) => r.luck), (v) => signed(v));
    $("charts").hidden = false;
  }

  function drawGames(rows) {
    const body = $("games").tBodies[0];
    body.innerHTML = "";
    rows.forEach((r, i) => {
      const score = Object.entries(r.score).map(([k, v]) => `${k} ${v}`).join(", ");
      const result = `${r.won ? "won" : "lost"} (${score})`;
      const when = r.finished ? r.finished.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }) : "";
      body.append(el("tr", {
        "data-token": r.token, "data-hands": String(r.hands), "data-declared": String(r.declared),
        "data-made": String(r.made), "data-mistakes": String(r.mistakes), "data-decisions": String(r.decisions),
        "data-marks-loss": fixed(r.marksLoss, 4), "data-price": fixed(r.price, 4), "data-luck": fixed(r.luck, 4),
        "data-won": r.won ? "1" : "0",
      }, `<td>${rows.length - i}</td><td>${esc(when)}</td><td>${r.hands}</td><td>${esc(result)}</td>` +
        `<td>${r.declared ? `${r.made} of ${r.declared}` : "\u2013"}</td><td>${r.mistakes} of ${r.decisions}</td>` +
        `<td>${fixed(r.marksLoss)}</td><td>${fixed(r.price)}</td><td>${signed(r.luck)}</td>`));
    });
    $("games-box").hidden = false;
  }

  async function init() {
    document.body.dataset.ready = "1";
    try {
      const { games, forgotten } = await listGames();
      if (forgotten) {
        $("forgotten").textContent = `${forgotten} game${forgotten === 1 ? "" : "s"} this server no longer knows ` +
          "(another server's, or its tables were lost) left out, and forgotten.";
        $("forgotten").hidden = false;
      }
      if (!games.length) {
        $("status").innerHTML = 'No finished game in this browser yet: <a href="play.html">play one</a>.';
        document.body.dataset.state = "empty";
        return;
      }
      const rows = [];
      for (const [i, game] of games.entries()) {   // one at a time: a grading takes a worker
        $("status").textContent = `Grading your calls and plays: game ${i + 1} of ${games.length}\u2026`;
        rows.push(figuresOf(game, await gradesOf(game)));
      }
      drawCharts(rows);
      drawGames(rows);
      $("status").textContent = `${rows.length} finished game${rows.length === 1 ? "" : "s"}.`;
      document.body.dataset.state = "shown";
    } catch (err) {
      $("status").textContent = "";
      showError(err);
      document.body.dataset.state = "error";
    }
  }

  init();
})();

// What the viewer (app.js) and the game page (play.js) share: the Connect JSON call to
// texas42.v1.HintService and its error, the protocol's enum names, the pips of a domino,
// small DOM helpers and the base64url of a link. Loaded before each page's own script;
// everything is in window.T42Common.
"use strict";

(() => {
  const SERVICE = "/texas42.v1.HintService/";
  const SEATS = ["N", "E", "S", "W"];
  const SEAT_WORD = { N: "North", E: "East", S: "South", W: "West" };
  const HAND_FIELD = { N: "north", E: "east", S: "south", W: "west" };
  const SEAT_ENUM = { N: "SEAT_NORTH", E: "SEAT_EAST", S: "SEAT_SOUTH", W: "SEAT_WEST" };
  const inverse = (map) => Object.fromEntries(Object.entries(map).map(([k, v]) => [v, k]));
  // The declarations by their SPEC names, and the proto Declaration enum of each.
  const TRUMPS = ["blanks", "ones", "deuces", "treys", "fours", "fives", "sixes", "doubles",
    "follow-me", "nello", "sevens"];
  const TRUMP_ENUM = Object.fromEntries(TRUMPS.map((t) =>
    [t, "DECLARATION_" + t.toUpperCase().replace("-", "_")]));
  const DOUBLES_ENUM = { high: "DOUBLES_OPTION_HIGH", low: "DOUBLES_OPTION_LOW", suit: "DOUBLES_OPTION_SUIT" };
  const KIND_ENUM = { standard: "CONTRACT_KIND_STANDARD", plunge: "CONTRACT_KIND_PLUNGE", splash: "CONTRACT_KIND_SPLASH" };
  // Pip centres in a 3 x 3 grid (column, row) for 0 ... 6 pips.
  const PIPS = [
    [], [[1, 1]], [[0, 0], [2, 2]], [[0, 0], [1, 1], [2, 2]], [[0, 0], [2, 0], [0, 2], [2, 2]],
    [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]], [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [2, 2]],
  ];

  /**
   * A domino's drawing in a box of `half` by 2 `half` (across: 2 `half` by `half`): its
   * width and height, the dividing line, and each half's pip count and pip centres
   * (cx, cy as text, one decimal).
   */
  function dominoGeometry(tile, half, horizontal) {
    const [high, low] = tile.split("-").map(Number);
    const w = horizontal ? 2 * half : half;
    const h = horizontal ? half : 2 * half;
    const line = horizontal ? { x1: half, y1: 3, x2: half, y2: h - 3 }
      : { x1: 3, y1: half, x2: w - 3, y2: half };
    const halves = [[high, 0], [low, 1]].map(([pips, k]) => {
      const ox = horizontal ? k * half : 0;
      const oy = horizontal ? 0 : k * half;
      const centres = PIPS[pips].map(([col, row]) => {
        if (horizontal) [col, row] = [row, 2 - col];
        return [(ox + half * (0.22 + 0.28 * col)).toFixed(1), (oy + half * (0.22 + 0.28 * row)).toFixed(1)];
      });
      return { pips, centres };
    });
    return { w, h, line, halves };
  }

  const $ = (id) => document.getElementById(id);

  /** An element with these attributes (true: present, empty; false or null: absent). */
  function el(tag, attrs = {}, html = "") {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v != null && v !== false) node.setAttribute(k, v === true ? "" : v);
    }
    node.innerHTML = html;
    return node;
  }

  const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  const toBase64Url = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const fromBase64Url = (text) => new TextDecoder().decode(Uint8Array.from(
    atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));

  /** A Connect error answer: its code, message and the BadRequest field violations. */
  class ServiceError extends Error {
    constructor(data, status, method) {
      super(data.message || `HTTP ${status}`);
      this.method = method;
      this.code = data.code || "unknown";
      this.violations = [];
      this.reason = "";   // the stable reason code (ErrorInfo), e.g. TABLE_UNKNOWN
      for (const detail of data.details || []) {
        if (detail.type === "google.rpc.BadRequest" && detail.debug) {
          this.violations.push(...(detail.debug.fieldViolations || []));
        } else if (detail.type === "google.rpc.ErrorInfo" && detail.debug) {
          this.reason = detail.debug.reason || "";
        }
      }
    }
  }

  /** POSTs a body to the server: its JSON answer, or a ServiceError. */
  async function post(path, body, contentType, method) {
    const response = await fetch(path, { method: "POST", headers: { "Content-Type": contentType }, body });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new ServiceError(data, response.status, method);
    return data;
  }

  /** A HintService RPC over Connect JSON: the answer as proto JSON. */
  const rpc = (method, body) => post(SERVICE + method, JSON.stringify(body), "application/json", method);

  window.T42Common = Object.freeze({
    SERVICE, SEATS, SEAT_WORD, HAND_FIELD, SEAT_ENUM, SEAT_OF_ENUM: inverse(SEAT_ENUM),
    SEAT_OF_FIELD: inverse(HAND_FIELD), TRUMPS, TRUMP_ENUM, TRUMP_OF_ENUM: inverse(TRUMP_ENUM),
    DOUBLES_ENUM, DOUBLES_OF_ENUM: inverse(DOUBLES_ENUM), KIND_ENUM, KIND_OF_ENUM: inverse(KIND_ENUM),
    dominoGeometry, $, el, escapeHtml, toBase64Url, fromBase64Url, ServiceError, post, rpc,
  });
})();

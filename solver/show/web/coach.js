// What the game page (play.js) and the page of finished games (history.js) share about
// coaching: the options they grade with (GradeGame), a person's part of a hand's grades,
// and what this browser keeps: the tokens of its finished tables (a person is the tokens
// it holds, never a name) and the person's grades of their hands, so that a hand is
// graded once. Everything else comes from texas42.v1.HintService.
"use strict";

(() => {
  const { SEAT_ENUM } = window.T42Common;
  const FINISHED_KEY = "t42.finished";
  // The person's grades as kept since luck and the price of hidden information were told
  // apart (grades kept before under "t42.grades" had the price inside luck: made again).
  const GRADES_KEY = "t42.grades.2";
  // Modest seeded samples: a hand graded in a second or two, the same grades each time.
  const options = Object.freeze({ deals: 30, seed: 42, adviceDeals: 20, adviceSeed: 42,
    ...(window.T42CoachOptions || {}) });

  const read = (key, fallback) => {
    try { return JSON.parse(localStorage.getItem(key) || "null") ?? fallback; } catch (err) { return fallback; }
  };
  const write = (key, value) => {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch (err) { /* no storage */ }
  };

  /** +1 when the seat's side wants the hand's double-dummy value high: the declaring
   * side, bar nello's declarer (the value is its tricks, which it wants few of). */
  function sideSign(h, seat) {
    const declaring = (h.declaring || []).includes(SEAT_ENUM[seat]);
    const nello = h.contract?.declaration === "DECLARATION_NELLO";
    return declaring !== nello ? 1 : -1;
  }

  /** A person's part of a hand's grades (a HandGrades of GradeGame, as proto JSON): its
   * own decisions summed up, the price of hidden information its plays paid (what not
   * seeing the other hands cost them on average over the deals: minus its seat's
   * information term), and the hand's luck for its side (the deal's share of the
   * double-dummy change, turned to its side). */
  function personOf(h, seat) {
    const me = SEAT_ENUM[seat];
    const mine = (h.seats || []).find((s) => s.seat === me) || {};
    const played = Boolean(h.contract);
    return {
      hand: h.hand || 0, decisions: mine.decisions || 0, mistakes: mine.mistakes || 0,
      loss: mine.loss || 0, marksLoss: mine.marksLoss || 0, price: -(mine.information || 0),
      luck: played ? sideSign(h, seat) * (h.luck || 0) : 0, unit: h.unit === "VALUE_UNIT_TRICKS" ? "tricks" : "points",
    };
  }

  /** The GradeGame request of a record (proto JSON) for some of its hands. */
  const gradeRequest = (record, hands) => ({ record, hands, options });

  const finishedTokens = () => read(FINISHED_KEY, []).filter((t) => typeof t === "string");

  function addFinished(token) {
    const tokens = finishedTokens();
    if (!tokens.includes(token)) write(FINISHED_KEY, [...tokens, token]);
  }

  function dropFinished(token) {
    write(FINISHED_KEY, finishedTokens().filter((t) => t !== token));
  }

  const sameOptions = (a) => JSON.stringify(a) === JSON.stringify(options);

  /** The person's grades kept for a table's token ({hand index: personOf}), when they
   * were made with today's options. */
  function kept(token) {
    const entry = read(GRADES_KEY, {})[token];
    return entry && sameOptions(entry.options) ? entry.hands : {};
  }

  function keep(token, summaries) {
    const all = read(GRADES_KEY, {});
    const entry = all[token] && sameOptions(all[token].options) ? all[token] : { options, hands: {} };
    for (const s of summaries) entry.hands[s.hand] = s;
    all[token] = entry;
    write(GRADES_KEY, all);
  }

  window.T42Coach = Object.freeze({ options, personOf, sideSign, gradeRequest, finishedTokens, addFinished,
    dropFinished, kept, keep });
})();

// A complete 42 and Moon bot for the bot protocol (docs/guides/bots.md), in Node.js:
// it says hello, then answers every request with one of its legal options, picked by
// the request's seed.
// Run it in the arena: t42 arena "cmd:node examples/bots/random_bot.mjs" rule --games 2
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

// The choice for one request: a legal option, copied as it is. request.view holds what
// the seat knows: its tiles, the calls, the contract and the plays so far, the rules.
function decide(request) {
  // A step of a linear congruential generator from the seed (0..2**32-1).
  const draw = (Math.imul(request.seed, 1664525) + 1013904223) >>> 0;
  return request.legal[draw % request.legal.length];
}

// The engine's hello, then one request a line; the input ends when the game is over.
for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ type: "hello", protocol: 1, name: "random-js", games: ["42", "moon"], calls: true });
  } else {
    send({ id: message.id, choice: decide(message) });
  }
}

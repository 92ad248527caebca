// Solve examples/deal.json over the Connect protocol: one POST of JSON, no
// generated code. The same fetch call works in a browser page.
// Usage: node examples/connect_client.mjs http://127.0.0.1:8042
const base = process.argv[2] ?? "http://127.0.0.1:8042";

const request = {
  position: {
    hands: {
      north: ["6-3", "6-2", "6-0", "5-4", "5-3", "5-2", "2-2"],
      east: ["6-6", "6-5", "6-4", "5-0", "4-1", "3-2", "0-0"],
      south: ["6-1", "4-4", "4-2", "3-1", "3-0", "2-1", "1-0"],
      west: ["5-5", "5-1", "4-3", "4-0", "3-3", "2-0", "1-1"],
    },
    contract: { declarer: "SEAT_WEST", declaration: "DECLARATION_FOURS", bid: 30 },
  },
};

const response = await fetch(`${base}/texas42.v1.HintService/SolvePosition`, {
  method: "POST",
  headers: { "Content-Type": "application/json", "Connect-Timeout-Ms": "10000" },
  body: JSON.stringify(request),
});
const answer = await response.json();
if (!response.ok) {
  // a Connect error: {"code": "invalid_argument", "message": "...", "details": [...]}
  console.error(`${answer.code}: ${answer.message}`);
  process.exit(1);
}
const { value, makes, toMove, moves } = answer.solution;
console.log(`value ${value}, makes ${makes}, ${toMove} to move`);
for (const move of moves) console.log(`  ${move.tile}  ${move.value}`);

"""The game as data: tiles, the rules of each declaration, contracts, positions,
a seat's view, the JSON reader and the errors of bad input. Imports nothing
above it."""

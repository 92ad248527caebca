#!/usr/bin/env python3
"""A complete 42 and Moon bot for the bot protocol (docs/guides/bots.md): it says hello,
then answers every request with one of its legal options, drawn from the request's seed.

Run it in the arena: t42 arena "cmd:python3 examples/bots/random_bot.py" rule --games 2
With --plays-only its hello says it only plays: it is seated where the contract is given.
"""

import json
import random
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # one line per message, sent at once


def decide(request):
    """The choice for one request: any of its legal options, copied as it is.

    request["view"] holds what the seat knows: its tiles (view["hands"]), the
    calls (view["auction"]), the contract and the plays so far, and the rules.
    """
    return random.Random(request["seed"]).choice(request["legal"])


def main():
    calls = "--plays-only" not in sys.argv[1:]
    for line in sys.stdin:  # the engine's hello, then one request a line
        message = json.loads(line)
        if message["type"] == "hello":
            send({"type": "hello", "protocol": 1, "name": "random-py",
                  "games": ["42", "moon"], "calls": calls})
        else:
            send({"id": message["id"], "choice": decide(message)})
    # The end of the input: the game is over, exit.


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A bot of the bot protocol for the tests, good or bad as asked.

    rogue_bot.py MODE [--after N] [--log FILE] [--marker FILE] [--declarations A,B]

It plays the first legal option of each request. After N requests (0 by default)
it does what MODE says: ``good`` (nothing else), ``hang`` (never answers),
``crash`` (exits with status 3), ``crash-once`` (crashes once: the first time,
when --marker FILE does not exist yet, it creates it), ``illegal`` (answers an
option it was not offered), ``garbage`` (answers a line that is not JSON).
``plays-only`` says in its hello that it does not call, ``--declarations`` that it
plays only those; ``protocol-2`` says it speaks protocol 2. ``--log FILE`` appends every line it reads and writes, as
{"dir": "in" | "out", "pid": ..., "line": ...}.
"""

import argparse
import json
import os
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--after", type=int, default=0)
    parser.add_argument("--log")
    parser.add_argument("--marker")
    parser.add_argument("--declarations")
    args = parser.parse_args()

    def log(direction, line):
        if args.log:
            with open(args.log, "a", encoding="utf-8") as f:
                f.write(json.dumps({"dir": direction, "pid": os.getpid(), "line": line})
                        + "\n")

    def send(message):
        line = json.dumps(message)
        log("out", line)
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    answered = 0
    for line in sys.stdin:
        line = line.rstrip("\n")
        log("in", line)
        request = json.loads(line)
        if request["type"] == "hello":
            hello = {"type": "hello", "protocol": 2 if args.mode == "protocol-2" else 1,
                     "name": f"rogue-{args.mode}",
                     "games": ["42", "moon"], "calls": args.mode != "plays-only"}
            if args.declarations:
                hello["declarations"] = args.declarations.split(",")
            send(hello)
            continue
        if answered >= args.after:
            if args.mode == "hang":
                time.sleep(3600)
            if args.mode == "crash" or (args.mode == "crash-once" and
                                        not os.path.exists(args.marker)):
                if args.marker:
                    open(args.marker, "w").close()
                sys.stderr.write("rogue bot: crashing as asked\n")
                sys.exit(3)
            if args.mode == "illegal":
                wrong = {"call": 29, "declare": {"trump": "sixes", "doubles": "low"},
                         "discard": "9-9", "play": "7-7"}[request["type"]]
                send({"id": request["id"], "choice": wrong})
                continue
            if args.mode == "garbage":
                log("out", "this is not JSON")
                sys.stdout.write("this is not JSON\n")
                sys.stdout.flush()
                continue
        answered += 1
        send({"id": request["id"], "choice": request["legal"][0]})


if __name__ == "__main__":
    main()

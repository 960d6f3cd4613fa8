#!/usr/bin/env python3
"""Ingestion into `rvmon serve` against offline `rvmon check` on the same log (issue 33).

Usage:
  python3 bench/serve_load.py RVMON [N] [BATCH]      (default N = 200000 time points, BATCH = 1000)
  e.g. python3 bench/serve_load.py target/release/rvmon 1000000 1000

Loopback only, bounded: one server on 127.0.0.1 (port chosen by the system), one client
connection (HTTP/1.1 keep-alive, Python's http.client), N time points in batches of BATCH
(each acknowledged only once fsynced), then `close`; best of RUNS (default 3), each service run
on a fresh state directory. Reports time points per second for the
service and for `rvmon check SPEC LOG --output jsonl` on the same log, their ratio (the
issue's goal: the service at least 1/3 of offline), and checks that the verdicts served
equal the offline ones. The log: examples/requests/policy.mtl's events, fixed seed.
"""
import http.client
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "examples", "requests", "policy.mtl")
RUNS = int(os.environ.get("RUNS", "3"))


def make_log(n, path):
    rng = random.Random(33)
    ts = 0
    lines = []
    with open(path, "w") as f:
        for _ in range(n):
            ts += rng.randrange(3)
            line = "@%d %s\n" % (ts, rng.choice(["request()", "grant()", "heartbeat()", "request() grant()"]))
            f.write(line)
            lines.append(line)
    return lines


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rvmon = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    tmp = tempfile.mkdtemp(prefix="rvmon-serve-bench-")
    try:
        log = os.path.join(tmp, "trace.log")
        lines = make_log(n, log)
        offline_s = math.inf
        for _ in range(RUNS):
            t0 = time.perf_counter()
            offline = subprocess.run([rvmon, "check", SPEC, log, "--output", "jsonl"], capture_output=True, text=True)
            offline_s = min(offline_s, time.perf_counter() - t0)
        want = offline.stdout.splitlines()
        serve_s, got = math.inf, None
        for run in range(RUNS):
            secs, got = serve(rvmon, lines, n, batch, os.path.join(tmp, "state%d" % run))
            serve_s = min(serve_s, secs)
        stripped = ["{" + line.split(",", 1)[1] for line in got]
        same = stripped == want
        print("%s; N=%d time points, batches of %d; best of %d; %s" % (rvmon, n, batch, RUNS, time.strftime("%Y-%m-%d")))
        print()
        print("| N | batch | serve s | serve tp/s | offline s | offline tp/s | serve / offline | verdicts | same as offline |")
        print("|---|---|---|---|---|---|---|---|---|")
        print("| %d | %d | %.2f | %.0f | %.3f | %.0f | %.2f | %d | %s |" % (
            n, batch, serve_s, n / serve_s, offline_s, n / offline_s, offline_s / serve_s, len(got),
            "yes" if same else "NO"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def start_server(rvmon, state):
    """`rvmon serve SPEC` on a port of 127.0.0.1 the system picks: (process, host, port)."""
    server = subprocess.Popen(
        [rvmon, "serve", SPEC, "--listen", "127.0.0.1:0", "--state-dir", state],
        stderr=subprocess.PIPE, text=True)
    host, port = server.stderr.readline().split("http://")[1].split()[0].split(":")
    return server, host, int(port)


def serve(rvmon, lines, n, batch, state):
    """One run of the service on a fresh state directory: (seconds, verdict lines)."""
    server, host, port = start_server(rvmon, state)
    try:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        bodies = ["".join(lines[i:i + batch]).encode() for i in range(0, n, batch)]
        t0 = time.perf_counter()
        at = 0
        for body in bodies:
            conn.request("POST", "/v1/streams/bench/events?from=%d" % at, body, {"Content-Type": "text/plain"})
            r = conn.getresponse()
            answer = r.read().decode()
            if r.status != 200:
                sys.exit("refused: %s" % answer)
            at = int(answer.split(":")[1].rstrip("}\n"))
        conn.request("POST", "/v1/streams/bench/close", b"")
        conn.getresponse().read()
        secs = time.perf_counter() - t0
        conn.request("GET", "/v1/streams/bench/verdicts")
        got = conn.getresponse().read().decode().splitlines()
    finally:
        server.kill()
        server.wait()
    return secs, got


if __name__ == "__main__":
    main()

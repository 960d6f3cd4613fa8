#!/usr/bin/env python3
"""Latency of `rvmon serve`: from a POST to its verdict on the server-sent events (issue 33).

Usage:
  python3 bench/serve_latency.py RVMON [RATE] [SECONDS] [BATCH]
  (default: 10000 events/s for 10 s, in batches of 100 time points)

Loopback only, bounded in time: one server on 127.0.0.1, one client thread posting BATCH time
points every BATCH/RATE seconds (MonPoly lines for examples/requests/policy.mtl), each batch
ending with a `grant()` no `request()` preceded (a violation decided at once, by the past-time
half of the policy), and one thread reading `GET …/verdicts/stream`. The latency of a batch is
the time from just before its POST is sent to the arrival of its last time point's verdict.
Prints p50, p99 and the largest, and the rate achieved.
"""
import http.client
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_load import start_server  # noqa: E402  (one way to start the server)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rvmon = sys.argv[1]
    rate = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    batch = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    tmp = tempfile.mkdtemp(prefix="rvmon-serve-latency-")
    server, host, port = start_server(rvmon, os.path.join(tmp, "state"))
    try:
        post = http.client.HTTPConnection(host, port, timeout=30)
        # The stream exists once a first batch is in; then the reader connects.
        post.request("POST", "/v1/streams/l/events", b"@0 heartbeat()\n", {"Content-Type": "text/plain"})
        post.getresponse().read()
        sent = {}  # time point index of a batch's last line -> send time
        arrived = {}
        done = threading.Event()

        def read_events():
            conn = http.client.HTTPConnection(host, port, timeout=seconds + 30)
            conn.request("GET", "/v1/streams/l/verdicts/stream")
            r = conn.getresponse()
            while not done.is_set():
                line = r.fp.readline()
                if not line:
                    break
                if line.startswith(b"data: "):
                    tp = int(line.split(b'"tp":')[1].split(b",")[0])
                    arrived[tp] = time.perf_counter()

        reader = threading.Thread(target=read_events, daemon=True)
        reader.start()
        time.sleep(0.2)
        ts, index, period = 10, 1, batch / rate
        start = time.perf_counter()
        next_at = start
        while time.perf_counter() - start < seconds:
            lines = []
            for _ in range(batch - 1):
                lines.append("@%d heartbeat()\n" % ts)
            ts += 10  # more than 5 s after any request: the grant below is a violation
            lines.append("@%d grant()\n" % ts)
            ts += 1
            last = index + batch - 1
            body = "".join(lines).encode()
            sent[last] = time.perf_counter()
            post.request("POST", "/v1/streams/l/events", body, {"Content-Type": "text/plain"})
            r = post.getresponse()
            r.read()
            if r.status != 200:
                sys.exit("refused: %d" % r.status)
            index += batch
            next_at += period
            pause = next_at - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
        elapsed = time.perf_counter() - start
        deadline = time.perf_counter() + 5
        while len(arrived) < len(sent) and time.perf_counter() < deadline:
            time.sleep(0.01)
        done.set()
        lat = sorted((arrived[k] - t) * 1000 for k, t in sent.items() if k in arrived)
        if not lat:
            sys.exit("no verdict arrived")
        pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
        print("%s; %d events/s asked, batches of %d, %.0f s; %s" % (rvmon, rate, batch, seconds, time.strftime("%Y-%m-%d")))
        print()
        print("| events/s achieved | batches | verdicts received | p50 ms | p99 ms | max ms |")
        print("|---|---|---|---|---|---|")
        print("| %.0f | %d | %d | %.2f | %.2f | %.2f |" % (
            (index - 1) / elapsed, len(sent), len(lat), pick(0.5), pick(0.99), lat[-1]))
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

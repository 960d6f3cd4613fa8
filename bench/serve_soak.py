#!/usr/bin/env python3
"""Memory soak of `rvmon serve` (issue 33): a bounded specification fed N events, the
server's resident memory sampled as they go. Its memory must stay flat: the monitor's
state is bounded by the formula, the write-ahead log starts afresh at each snapshot, and
nothing else grows with the stream.

Usage:
  python3 bench/serve_soak.py RVMON [N] [BATCH]     (default N = 100000000, BATCH = 10000)
  e.g. python3 bench/serve_soak.py target/release/rvmon 100000000 10000

Loopback only, bounded: one server on 127.0.0.1 (port chosen by the system, snapshots every
1,000,000 time points), one client connection, N time points of
examples/requests/policy.mtl's events (one time point per time unit; a request without its
grant once every 100,000, so verdicts keep coming too), then `close`. Prints the server's
resident set size (VmRSS, from /proc) and the state directory's size at 20 points of the run
(halfway between two snapshots),
and checks the verdicts' count (N / 100,000).
"""
import http.client
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "examples", "requests", "policy.mtl")
EVERY = 100_000


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def body(start, count):
    """Time points start .. start+count: heartbeats, a request granted at once every 100
    points, and an ungranted request every EVERY points (one violation each)."""
    lines = []
    for t in range(start, start + count):
        if t % EVERY == EVERY // 2:
            lines.append(b"@%d request()\n" % t)
        elif t % 100 == 0:
            lines.append(b"@%d request() grant()\n" % t)
        else:
            lines.append(b"@%d heartbeat()\n" % t)
    return b"".join(lines)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rvmon = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000_000
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
    tmp = tempfile.mkdtemp(prefix="rvmon-serve-soak-")
    state = os.path.join(tmp, "state")
    server = subprocess.Popen(
        [rvmon, "serve", SPEC, "--listen", "127.0.0.1:0", "--state-dir", state,
         "--snapshot-every", "1000000"],
        stderr=subprocess.PIPE, text=True)
    try:
        host, port = server.stderr.readline().split("http://")[1].split()[0].split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=120)
        rows = []
        step = max(n // 20, batch)
        t0 = time.perf_counter()
        at = 0
        while at < n:
            count = min(batch, n - at)
            conn.request("POST", "/v1/streams/soak/events?from=%d" % at, body(at, count),
                         {"Content-Type": "text/plain"})
            r = conn.getresponse()
            answer = r.read().decode()
            if r.status != 200:
                sys.exit("refused: %s" % answer)
            before = at
            at = int(answer.split(":")[1].split(",")[0].rstrip("}\n"))
            # (Sampled halfway between snapshots, where the write-ahead log is largest.)
            half = step // 2
            if (at + half) // step != (before + half) // step or at == n:
                rows.append((at, rss_kib(server.pid), dir_bytes(state), time.perf_counter() - t0))
        conn.request("POST", "/v1/streams/soak/close", b"")
        conn.getresponse().read()
        conn.request("GET", "/v1/streams/soak")
        status = conn.getresponse().read().decode()
        secs = time.perf_counter() - t0
        verdicts = int(status.split('"verdicts":')[1].split(",")[0])
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%s; N=%d time points, batches of %d, snapshots every 1,000,000; %s"
          % (rvmon, n, batch, time.strftime("%Y-%m-%d")))
    print()
    print("| time points | seconds | server RSS MiB | state directory MiB |")
    print("|---|---|---|---|")
    for at, rss, size, t in rows:
        print("| %d | %.0f | %.1f | %.1f |" % (at, t, rss / 1024, size / 2**20))
    print()
    first, last = rows[0][1], max(r[1] for r in rows)
    print("RSS after the first %d: %.1f MiB; largest: %.1f MiB; %.0f time points/s; verdicts %d "
          "(expected %d)" % (rows[0][0], first / 1024, last / 1024, n / secs, verdicts, n // EVERY))
    if verdicts != n // EVERY:
        sys.exit("wrong number of verdicts")


if __name__ == "__main__":
    main()

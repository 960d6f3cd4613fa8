#!/usr/bin/env python3
"""Paper 04's policies P1-P6, single engine against sliced parallel runs (timely-dataflow).

Usage: python3 bench/sliced.py DAYS [RUNS]

Generates `rvmon gen paper04 --computers 100 --days DAYS` (about 101 k events per day), then
for each policy runs, as whole processes under /usr/bin/time:
  single        rvmon check P LOG --sig S --output monpoly
  data, 1 reader ... --workers 2 --slicing data --readers 1 (one thread parses the log)
  data          ... --workers 2 --slicing data   (the log parsed in pieces by 2 threads)
  time          ... --workers 2 --slicing time   (2 periods, each worker reads its own)
  2 processes   ... --processes 2 --process-id 0|1 (loopback, a hostfile of two free
                    ports; --slicing auto, whose choice is printed)
checks that each writes the same output as the single run, and prints wall time (median of
RUNS, default 1), peak RSS, and the speed-ups. Slice sizes come from --slice-report.
"""
import atexit
import shutil
import os, re, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RVMON = os.path.join(ROOT, "target", "release", "rvmon")
EX = os.path.join(ROOT, "examples", "paper04")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def timed(cmds):
    """Runs the commands together; returns (wall s, max RSS MB, stdout of the first, its stderr)."""
    start = time.time()
    procs = []
    for i, cmd in enumerate(cmds):
        out = tempfile.TemporaryFile()
        err = tempfile.TemporaryFile()
        procs.append((subprocess.Popen(["/usr/bin/time", "-f", "RSS %M"] + cmd, stdout=out, stderr=err), out, err))
    rss = 0
    first = None
    for i, (p, out, err) in enumerate(procs):
        p.wait()
        out.seek(0)
        err.seek(0)
        e = err.read().decode()
        rss = max([rss] + [int(l.split()[1]) for l in e.splitlines() if l.startswith("RSS ")])
        if i == 0:
            first = (out.read(), e)
    return time.time() - start, rss / 1024, first[0], first[1]


def main():
    days = int(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    tmp = tempfile.mkdtemp(prefix="rvmon-sliced-")
    atexit.register(shutil.rmtree, tmp, True)  # (gone when the script ends)
    log = os.path.join(tmp, "paper04.log")
    with open(log, "wb") as f:
        subprocess.run([RVMON, "gen", "paper04", "--computers", "100", "--days", str(days)], stdout=f, check=True)
    events = sum(l.count("(") for l in open(log))
    hosts = os.path.join(tmp, "hosts")
    print(f"log: {events:,} events, {os.path.getsize(log) / 1e6:.0f} MB")
    print("| policy | single | data, 1 reader | data | time | auto, 2 processes | auto chose | peak RSS single / data / time | busiest data slice's worker | same output |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in range(1, 7):
        base = [RVMON, "check", os.path.join(EX, f"p{p}.mfotl"), log, "--sig", os.path.join(EX, "paper04.sig"), "--output", "monpoly"]
        res = {}
        for mode in ["single", "one_reader", "workers", "time", "processes"]:
            walls = []
            for _ in range(runs):
                if mode == "single":
                    r = timed([base])
                elif mode == "one_reader":
                    r = timed([base + ["--workers", "2", "--slicing", "data", "--readers", "1"]])
                elif mode == "workers":
                    r = timed([base + ["--workers", "2", "--slicing", "data", "--slice-report"]])
                elif mode == "time":
                    r = timed([base + ["--workers", "2", "--slicing", "time"]])
                else:
                    with open(hosts, "w") as f:
                        f.write(f"127.0.0.1:{free_port()}\n127.0.0.1:{free_port()}\n")
                    cluster = ["--processes", "2", "--hostfile", hosts]
                    r = timed([base + cluster + ["--process-id", "0"], base + cluster + ["--process-id", "1"]])
                walls.append(r)
            walls.sort(key=lambda r: r[0])
            res[mode] = walls[len(walls) // 2]
        same = all(res[m][2] == res["single"][2] for m in res)
        shares = [float(m) for l in res["workers"][3].splitlines() if l.startswith("rvmon: worker ")
                  for m in re.findall(r"\(([\d.]+) %\)", l)]
        s, o, w, t, c = (res[m][0] for m in ["single", "one_reader", "workers", "time", "processes"])
        chose = "time" if "sliced by time" in res["processes"][3] else "data"
        cell = lambda x: f"{x:.2f} s ({s / x:.2f}x)"
        print(f"| P{p} | {s:.2f} s | {cell(o)} | {cell(w)} | {cell(t)} | {cell(c)} | {chose} | {res['single'][1]:.0f} / {res['workers'][1]:.0f} / {res['time'][1]:.0f} MB | {max(shares or [0]):.0f} % | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()

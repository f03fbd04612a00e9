"""A large saved-games file opened in the web app's Replay: how long the
upload takes, how long other requests wait meanwhile, and how much memory
the open file keeps.

The file is ``--mb`` megabytes of real games (``rule`` against ``random``,
recorded by the evaluator and repeated). The upload goes through the app
(``fastapi.testclient``) in one thread while another asks ``GET
/api/players`` every 20 ms; the memory kept is the process's resident size
after the upload, less before it (after a garbage collection), with the
upload's own body dropped.

    .venv/bin/python benchmarks/bench_web_upload.py [--mb 50]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import threading
import time
import warnings

from trappola.agents.evaluation import head_to_head


def resident_mb() -> float:
    """This process's resident memory in MB (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=50.0, help="size of the file in MB (default 50)")
    args = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from trappola.web.app import create_app

    games = head_to_head("rule", "random", 50, duplicate=True, seed=1, workers=1, record_games=True).games
    lines = [json.dumps(g).encode() for g in games]
    size = int(args.mb * 2**20)
    body: list[bytes] = []
    k = 0
    while sum(map(len, body)) < size:
        body.append(lines[k % len(lines)])
        k += 1
    data = b"\n".join(body)
    del body
    app = create_app()
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        gc.collect()
        before = resident_mb()
        result, waits = {}, []

        def upload():
            start = time.perf_counter()
            r = client.post("/api/replays", content=data, headers={"Content-Type": "application/x-ndjson"})
            result["seconds"] = time.perf_counter() - start
            result["status"] = r.status_code
            result["games"] = len(r.json().get("games", ()))

        thread = threading.Thread(target=upload)
        thread.start()
        while thread.is_alive():
            start = time.perf_counter()
            client.get("/api/players")
            waits.append(time.perf_counter() - start)
            time.sleep(0.02)
        thread.join()
        gc.collect()
        kept = resident_mb() - before
    waits.sort()
    print(f"file: {len(data) / 2**20:.1f} MB, {result['games']} games, status {result['status']}")
    print(f"upload and check: {result['seconds']:.2f} s")
    print(
        f"GET /api/players meanwhile: {len(waits)} answered, median {statistics.median(waits) * 1000:.0f} ms, "
        f"slowest {waits[-1] * 1000:.0f} ms"
    )
    print(f"memory kept by the open file: {kept:.0f} MB resident ({kept / (len(data) / 2**20):.1f}x the file)")
    replays = getattr(app.state, "replays", None)
    if replays is not None and hasattr(replays, "kept_bytes"):
        print(f"  of which the text kept (the checked lines and the game list): {replays.kept_bytes() / 2**20:.0f} MB")


if __name__ == "__main__":
    main()

"""A cache miss explained by the key's debug lines: one function compiled in three processes that share a cache
directory, the third with another default dtype; the hash of each part of the FX graph cache key compared."""

import json
import logging
import os
import re
import subprocess
import sys
import tempfile

import torch

KEY_LOGGERS = ("torch._inductor.codecache", "torch._functorch._aot_autograd.autograd_cache")
DETAILS = re.compile(r"^(FX graph|Autograd graph) cache hash details for key (\S+):\n", re.S)
LINE = re.compile(r"^\[(\w+)\] ([^:\s]+): ?(.*)$")


def scale(x):
    return (torch.sin(x) * 2).sum()


class KeyLines(logging.Handler):
    """The hash-details blocks the two cache modules log at debug level: {cache: (key, [(hash, part, value)])}."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.keys: dict[str, tuple[str, list[tuple[str, str, str]]]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        found = DETAILS.match(message)
        if not found:
            return
        parts = []
        for line in message[found.end():].splitlines():  # a part's value may span lines (a graph's code)
            line_found = LINE.match(line)
            if line_found:
                part_hash, part, value = line_found.groups()
                # Values are shown, not compared: addresses and unprintable bytes are left out.
                value = re.sub(r" at 0x[0-9a-f]+", "", value)
                value = value if value.isprintable() else "(bytes)"
                parts.append((part_hash, part, value[:60] + ("…" if len(value) > 60 else "")))
        self.keys["fx_graph" if found.group(1) == "FX graph" else "aotautograd"] = (found.group(2), parts)


def child(default_dtype: str) -> None:
    handler = KeyLines()
    for name in KEY_LOGGERS:  # debug level for these two loggers only, and nothing printed
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
        logger.propagate = False
    torch.set_default_dtype(getattr(torch, default_dtype))
    torch.compile(scale)(torch.randn(8, dtype=torch.float32))  # the input's dtype is fixed: only the default differs
    counters = torch._dynamo.utils.counters
    outcome = {"fx_graph": "hit" if counters["inductor"]["fxgraph_cache_hit"] else "miss",
               "aotautograd": "hit" if counters["aot_autograd"]["autograd_cache_hit"] else "miss"}
    print(json.dumps({"keys": handler.keys, "outcome": outcome}))


def run(cache_dir: str, default_dtype: str) -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir)
    for name in ("TORCHINDUCTOR_FX_GRAPH_CACHE", "TORCHINDUCTOR_AUTOGRAD_CACHE", "TORCH_LOGS"):
        env.pop(name, None)  # the caches at their defaults (on), whatever the caller's environment says
    done = subprocess.run([sys.executable, __file__, "child", default_dtype], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    runs = [("1", "float32"), ("2", "float32"), ("3", "float64")]
    with tempfile.TemporaryDirectory() as cache_dir:  # three processes, one fresh cache directory
        results = [run(cache_dir, dtype) for _, dtype in runs]
    for (label, dtype), result in zip(runs, results):
        print(f"process {label} (default dtype {dtype}): FX graph cache {result['outcome']['fx_graph']}, "
              f"AOTAutograd cache {result['outcome']['aotautograd']}")
    for cache in ("aotautograd", "fx_graph"):  # process 2 hit the AOTAutograd cache: it never keyed the FX graph
        first, third = ({part: h for h, part, _ in r["keys"][cache][1]} for r in (results[0], results[2]))
        changed = [part for part in first if first[part] != third.get(part)]
        print(f"{cache} key: {len(first)} parts, {len(changed)} with another hash in process 3: {', '.join(changed)}")
    first, third = ({part: (h, value) for h, part, value in r["keys"]["fx_graph"][1]} for r in (results[0], results[2]))
    differ = [part for part in first if first[part][0] != third.get(part, ("", ""))[0]]
    rows, folded = [], {}
    for part in first:
        group = part.partition("[")[0]
        if sum(name.startswith(group + "[") for name in first) > 12:  # inductor_config[…]: one row per setting
            folded.setdefault(group, []).append(part)
            if len(folded[group]) > 1:
                continue
        value, later = first[part][1], third.get(part, ("", "—"))[1]
        rows.append([part, first[part][0][:10], third.get(part, ("—", ""))[0][:10],
                     value if later == value else f"{value} → {later}"])
    for group, parts in folded.items():  # a group of many entries is one row: how many, how many differ
        row = next(row for row in rows if row[0] == parts[0])
        moved = sum(name in differ for name in parts)
        row[:] = [f"{group}[…]", f"{len(parts)} hashes", f"{moved} differ" if moved else "all the same",
                  f"{len(parts)} settings"]
    table = {"columns": ["part of the key", "hash, process 1", "hash, process 3", "value (1 → 3 where it differs)"],
             "rows": rows, "marked": [index for index, row in enumerate(rows) if row[0] in differ or "differ" in row[2]]}
    outcomes = {"columns": ["process", "default dtype", "FX graph cache", "AOTAutograd cache"],
                "rows": [[label, dtype, r["outcome"]["fx_graph"], r["outcome"]["aotautograd"]]
                         for (label, dtype), r in zip(runs, results)], "marked": [2]}
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w", encoding="utf-8") as out:
            json.dump({"tables": {"outcomes": outcomes, "key": table}}, out)


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        child(sys.argv[2])
    else:
        main()

"""How fast each file format is read, at paper scale: the 16,000-end-node fat tree and TaihuLight.

Run ``python benchmarks/readers.py`` (``--only fat-tree``). For each fabric the script writes the text every
reader takes, in the line shapes the real tools print (``ibnetdiscover``, ``ibnetdiscover -p``, ``iblinkinfo``,
``iblinkinfo -l``, a Slurm ``topology.conf``, a networkx ``DiGraph`` GraphML, an Open MPI hostfile naming every
host), reads it back with :func:`vizcoll.topology.io.parse` (the hostfile with :func:`vizcoll.comm.host_lists`),
checks the counts, and prints one JSON list: ``fabric``, ``format``, ``mb`` (size of the text), ``read_s`` (best
of three reads, format detection and host names included; None for a text above the 20 MB limit of a file) and
``nodes`` / ``links`` read.

``--markdown`` prints the docs' table (docs/benchmarks.md) instead, with the date, the commit and the machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import hostlist  # noqa: E402
import networkx as nx  # noqa: E402

from benchmarks import stamp  # noqa: E402
from vizcoll.comm import host_lists  # noqa: E402
from vizcoll.topology.generators import from_spec  # noqa: E402
from vizcoll.topology.io import MAX_FILE_BYTES, dumps, parse  # noqa: E402
from vizcoll.topology.model import SWITCH, Topology  # noqa: E402

FABRICS = {"fat-tree": "fat-tree:radix=40,levels=3", "taihulight": "pruned-fat-tree:preset=taihulight"}


def described(spec: str) -> Topology:
    """A generated fabric with GUIDs and the descriptions admins give (hosts ``hN HCA-1``, switches their name)."""
    import numpy as np

    topo = from_spec(spec)
    topo.guid = np.arange(1, topo.n_nodes + 1, dtype=np.uint64) * np.uint64(16) + np.uint64(0x0002C90300000000)
    topo.desc = [name if topo.kind[u] == SWITCH else f"{name} HCA-1" for u, name in enumerate(topo.names)]
    return topo


def _ends(topo: Topology):
    """Every cable from each end: (u, port, v, peer port)."""
    for a, pa, b, pb in zip(
        topo.link_a.tolist(), topo.link_pa.tolist(), topo.link_b.tolist(), topo.link_pb.tolist(), strict=True
    ):
        yield a, pa, b, pb
        yield b, pb, a, pa


def _port_guid(topo: Topology, u: int, port: int) -> int:
    return int(topo.guid[u]) + (port if topo.kind[u] != SWITCH else 0)


def ports_report(topo: Topology) -> str:
    """``ibnetdiscover -p``: one line per cabled port, seen from each end."""
    kind = ["SW" if k == SWITCH else "CA" for k in topo.kind.tolist()]
    return "".join(
        f"{kind[u]} {u + 1:5d} {p:2d} 0x{_port_guid(topo, u, p):016x} 4x EDR - {kind[v]} {v + 1:5d} {q:2d} "
        f"0x{_port_guid(topo, v, q):016x} ( '{topo.desc[u]}' - '{topo.desc[v]}' )\n"
        for u, p, v, q in _ends(topo)
    )


def iblinkinfo(topo: Topology, line_mode: bool = False) -> str:
    """``iblinkinfo`` (a header per node, LID = index + 1) or ``iblinkinfo -l``."""
    by_node: dict[int, list] = {}
    for u, p, v, q in _ends(topo):
        by_node.setdefault(u, []).append((p, v, q))
    out = []
    for u, ports in by_node.items():
        switch = topo.kind[u] == SWITCH
        if not line_mode:
            out.append(f"Switch: 0x{int(topo.guid[u]):016x} {topo.desc[u]}:" if switch else f"CA: {topo.desc[u]}:")
        for p, v, q in sorted(ports):
            link = f"{u + 1:6d} {p:4d}[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==> "
            if line_mode:
                peer = f"0x{_port_guid(topo, v, q):016x} {v + 1:6d} {q:4d}[  ]"
                out.append(f'0x{_port_guid(topo, u, p):016x} "{topo.desc[u]:>30}" {link} {peer} "{topo.desc[v]}" ( )')
            else:
                guid = "" if switch else f"0x{_port_guid(topo, u, p):016x} "
                out.append(f'    {guid}{link} {v + 1:6d} {q:4d}[  ] "{topo.desc[v]}" ( )')
    return "\n".join(out) + "\n"


def topology_conf(topo: Topology) -> str:
    """Slurm topology.conf: each switch with its hosts (a hostlist) or its lower switches."""
    level = topo.attr("level").tolist()
    below: dict[int, list[str]] = {}
    for a, b in zip(topo.link_a.tolist(), topo.link_b.tolist(), strict=True):
        low, high = (a, b) if level[a] < level[b] else (b, a)
        below.setdefault(high, []).append(topo.names[low])
    out = []
    for u in topo.switches.tolist():
        kids = below.get(u, [])
        key = "Switches" if kids and topo.kind[topo.index(kids[0])] == SWITCH else "Nodes"
        out.append(
            f"SwitchName={topo.names[u]} {key}={hostlist.collect_hostlist(kids)}"
            if kids
            else f"SwitchName={topo.names[u]}"
        )
    return "\n".join(out) + "\n"


def directed_graphml(topo: Topology) -> str:
    """What networkx writes for a DiGraph holding each cable both ways, the role in ``typ``."""
    g = nx.DiGraph()
    for u, name in enumerate(topo.names):
        g.add_node(name, typ="switch" if topo.kind[u] == SWITCH else "host")
    for u, _, v, _ in _ends(topo):
        g.add_edge(topo.names[u], topo.names[v])
    return "\n".join(nx.generate_graphml(g))


def best_of_three(read) -> tuple[float, object]:
    times, result = [], None
    for _ in range(3):
        start = time.perf_counter()
        result = read()
        times.append(time.perf_counter() - start)
    return min(times), result


def measure(fabric: str) -> list[dict]:
    topo = described(FABRICS[fabric])
    texts = {
        "ibnetdiscover": dumps(topo, "ibnetdiscover"),
        "ibnetdiscover-ports": ports_report(topo),
        "iblinkinfo": iblinkinfo(topo),
        "iblinkinfo -l": iblinkinfo(topo, line_mode=True),
        "slurm": topology_conf(topo),
    }
    if topo.n_links == len({frozenset(p) for p in zip(topo.link_a.tolist(), topo.link_b.tolist(), strict=True)}):
        texts["graphml (networkx, directed)"] = directed_graphml(topo)  # a DiGraph holds no parallel cables
    rows = []
    for fmt, text in texts.items():
        if len(text) > MAX_FILE_BYTES:
            rows.append(
                {
                    "fabric": fabric,
                    "format": fmt,
                    "mb": round(len(text) / 2**20, 2),
                    "read_s": None,
                    "nodes": None,
                    "links": None,
                    "note": "above the 20 MB limit of a file",
                }
            )
            continue
        seconds, read = best_of_three(lambda text=text: parse(text, "bench"))
        assert (read.n_nodes, read.n_links) == (topo.n_nodes, topo.n_links), fmt
        rows.append(
            {
                "fabric": fabric,
                "format": fmt,
                "mb": round(len(text) / 2**20, 2),
                "read_s": round(seconds, 3),
                "nodes": read.n_nodes,
                "links": read.n_links,
            }
        )
    hosts = "".join(f"{topo.names[u]} slots=4\n" for u in topo.endpoints.tolist())
    seconds, lists = best_of_three(lambda: host_lists(read, hosts))
    rows.append(
        {
            "fabric": fabric,
            "format": "Open MPI hostfile (every host, 4 slots)",
            "mb": round(len(hosts) / 2**20, 2),
            "read_s": round(seconds, 3),
            "nodes": len(topo.endpoints),
            "links": None,
            "processes": len(lists[0]),
        }
    )
    return rows


FORMATS = {
    "ibnetdiscover": "`ibnetdiscover`",
    "ibnetdiscover-ports": "`ibnetdiscover -p`",
    "iblinkinfo": "`iblinkinfo`",
    "iblinkinfo -l": "`iblinkinfo -l`",
    "slurm": "Slurm `topology.conf`",
    "graphml (networkx, directed)": "GraphML (networkx `DiGraph`, each cable both ways)",
}


def markdown(rows: list[dict]) -> str:
    """The rows as the docs' table (docs/benchmarks.md) (each fabric named on its first row), then where they were
    measured."""
    shown, named = [], set()
    for r in rows:
        counts = f" ({r['nodes']:,} nodes, {r['links']:,} links)" if r.get("links") else ""
        fabric = "" if r["fabric"] in named else f"`{FABRICS[r['fabric']]}`{counts}"
        named.add(r["fabric"])
        fmt = FORMATS.get(r["format"], r["format"])
        if "processes" in r:
            fmt += f", {r['processes']:,} processes"
        read = r.get("note") if r["read_s"] is None else f"{r['read_s']:.2f} s"
        shown.append([fabric, fmt, f"{r['mb']:.2f} MB", read])
    return stamp.table(["fabric", "format", "text", "read"], shown, right=[2, 3]) + "\n\n" + stamp.measured()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=FABRICS)
    parser.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    args = parser.parse_args()
    rows = [row for fabric in ([args.only] if args.only else FABRICS) for row in measure(fabric)]
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

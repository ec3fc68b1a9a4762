"""Small hand-written fabrics (ibnetdiscover text) whose names nobody generated, shared by the tests."""

from __future__ import annotations

import os
from pathlib import Path

REAL_FABRICS = Path(
    os.environ.get("VIZCOLL_REAL_FABRICS", Path(__file__).resolve().parents[2] / "shared" / "data" / "real-fabrics")
)
"""Real clusters' own fabric files (../shared/data/real-fabrics, never copied here; SOURCES.txt says where each
comes from). Tests that read them are skipped where the folder is not there (set VIZCOLL_REAL_FABRICS to it)."""

HOSTS = ("alpha", "beta", "gamma", "delta")


def _hosts() -> str:
    return "".join(
        f'\nHca 1 "{h}"\n[1] "{leaf}"[{port}]\n'
        for h, leaf, port in (("alpha", "leafA", 1), ("beta", "leafA", 2), ("gamma", "leafB", 1), ("delta", "leafB", 2))
    )


ONE_SPINE = """Switch 3 "spine"
[1] "leafA"[3]
[2] "leafB"[3]

Switch 3 "leafA"
[1] "alpha"[1]
[2] "beta"[1]
[3] "spine"[1]

Switch 3 "leafB"
[1] "gamma"[1]
[2] "delta"[1]
[3] "spine"[2]
""" + _hosts()
"""Two leaves of two hosts under one spine: a broken uplink cuts a leaf off."""

TWO_SPINES = """# a small two-level fabric written by hand
Switch 4 "spine1"
[1] "leafA"[3]
[2] "leafB"[3]

Switch 4 "spine2"
[1] "leafA"[4]
[2] "leafB"[4]

Switch 4 "leafA"
[1] "alpha"[1]
[2] "beta"[1]
[3] "spine1"[1]
[4] "spine2"[1]

Switch 4 "leafB"
[1] "gamma"[1]
[2] "delta"[1]
[3] "spine1"[2]
[4] "spine2"[2]
""" + _hosts()
"""Two leaves under two spines: every single break can be routed around."""


def campus_cluster() -> str:
    """The ``ibnetdiscover`` text of a cluster shaped like a real one, not a textbook fat tree: 214 switches in
    three tiers, 1,356 HCAs, 4,168 cables (the size of the 1,570-node fabric issue 23 was measured on).

    - 150 edge switches (``MF0;ib-l1-NNN:MQM8700/U1``) with 9 hosts each, and one host more on six of them
      (``cnNNNN mlx5_0``); each edge switch has two parallel cables to each of 7 tier-2 switches;
    - 48 tier-2 switches, the 40 first with 15 uplinks and the 8 others with 14, one to each of 15 core ASICs;
    - 16 core ASICs in two director chassis (``ib-core-1/U1`` ... ``ib-core-2/U8``: one description prefix per
      chassis).

    GUIDs and LIDs are made up; the stanzas are written as ibnetdiscover writes them (``S-``/``H-`` ids, node
    descriptions after ``#``, CA port GUIDs in parentheses).
    """
    edge, tier2, core = 150, 48, 16
    hosts = [(e, k) for e in range(edge) for k in range(9 + (e % 25 == 0))]
    switch_guid = [0x0002C90300F00000 + i for i in range(edge + tier2 + core)]
    desc = (
        [f"MF0;ib-l1-{e:03d}:MQM8700/U1" for e in range(edge)]
        + [f"MF0;ib-l2-{t:02d}:MQM8700/U1" for t in range(tier2)]
        + [f"ib-core-{1 + c // 8}/U{1 + c % 8}" for c in range(core)]
    )
    ports: dict[int, list] = {s: [] for s in range(edge + tier2 + core)}  # switch -> (port, peer id, peer port)
    host_port = {}
    for i, (e, _) in enumerate(hosts):
        ports[e].append((len(ports[e]) + 1, ("H", i), 1))
        host_port[i] = (e, len(ports[e]))
    for e in range(edge):
        for j in range(7):
            t = edge + (e * 7 + j) % tier2
            for _ in range(2):  # two parallel cables
                ports[e].append((len(ports[e]) + 1, ("S", t), len(ports[t]) + 1))
                ports[t].append((len(ports[t]) + 1, ("S", e), len(ports[e])))
    for t in range(edge, edge + tier2):
        for c in range(15 if t - edge < 40 else 14):
            s = edge + tier2 + (t + c) % core
            ports[t].append((len(ports[t]) + 1, ("S", s), len(ports[s]) + 1))
            ports[s].append((len(ports[s]) + 1, ("S", t), len(ports[t])))
    sid = [f"S-{g:016x}" for g in switch_guid]
    hid = [f"H-{0x0002C90301000000 + 16 * i:016x}" for i in range(len(hosts))]
    name = lambda kind, i: sid[i] if kind == "S" else hid[i]  # noqa: E731
    out = ["#", "# Topology file: a made-up cluster in ibnetdiscover's shape", "#"]
    for s in range(edge + tier2 + core):
        out += [
            "",
            "vendid=0x2c9",
            "devid=0xd2f0",
            f"sysimgguid=0x{switch_guid[s]:x}",
            f"switchguid=0x{switch_guid[s]:x}({switch_guid[s]:x})",
            f'Switch\t{max(40, len(ports[s]))} "{sid[s]}"\t\t# "{desc[s]}" enhanced port 0 lid {s + 1} lmc 0',
        ]
        for p, (kind, i), q in ports[s]:
            guid = f"({0x0002C90301000000 + 16 * i + 1:x})" if kind == "H" else ""
            peer_desc = f"cn{i:04d} mlx5_0" if kind == "H" else desc[i]
            out.append(f'[{p}]\t"{name(kind, i)}"[{q}]{guid}\t\t# "{peer_desc}" lid 1 4xEDR')
    for i in range(len(hosts)):
        e, p = host_port[i]
        guid = 0x0002C90301000000 + 16 * i
        out += [
            "",
            "vendid=0x2c9",
            "devid=0x1017",
            f"sysimgguid=0x{guid:x}",
            f"caguid=0x{guid:x}",
            f'Ca\t1 "{hid[i]}"\t\t# "cn{i:04d} mlx5_0"',
            f'[1]({guid + 1:x}) \t"{sid[e]}"[{p}]\t\t# lid {1000 + i} lmc 0 "{desc[e]}" lid {e + 1} 4xEDR',
        ]
    return "\n".join(out) + "\n"


# A Slurm topology.conf as a first-hour user brought one: five leaf switches and no switch above them; circe-n051
# under two of them, and listed twice on one line; an empty switch (Slurm's "empty leaf switch")
CIRCE = """# a cluster whose leaf switches have no switch above them
SwitchName=s0 Nodes=circe-n[001-016]
SwitchName=s1 Nodes=circe-n[017-032]
SwitchName=s2 Nodes=circe-n[033-048]
SwitchName=s3 Nodes=circe-n[049-064],circe-n051
SwitchName=s4 Nodes=circe-n[065-080],circe-n051
SwitchName=s5
"""

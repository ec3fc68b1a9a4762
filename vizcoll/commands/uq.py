"""``python -m vizcoll uq [--size 4] [--structure lct|bst] [--neighbors 8|4] [--numbering s-curve]``.

Prints ``{"mean_uq", "round1": {"intersection", "union", "uq"}}``: the mean
update quantity over the ``N x N`` transformations of the numbering's shifts
(the paper's 256 for the 4x4 S-curve) and the UQ of ``round(1)`` on the
unshifted numbering (the paper's Fig. 3). See :mod:`vizcoll.barrier.uq`.
"""

from __future__ import annotations

import argparse

from vizcoll.barrier.structures import NUMBERINGS, STRUCTURES, numbering
from vizcoll.barrier.uq import MAX_UQ_SIZE, mean_uq, uq_round
from vizcoll.commands import command

__all__: list[str] = []


def _args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=int, default=4, help=f"grid side, 1..{MAX_UQ_SIZE} (default 4)")
    parser.add_argument("--structure", choices=tuple(STRUCTURES), default="lct", help="pattern (default lct)")
    parser.add_argument(
        "--neighbors",
        type=int,
        choices=(4, 8),
        default=8,
        help="grid neighborhood (default 8, the model reproducing the paper's Fig. 3)",
    )
    parser.add_argument("--numbering", choices=NUMBERINGS, default="s-curve", help="node numbering (default s-curve)")


@command("uq", "update quantity of round(K) for LCT/BST on a grid (DLCT barrier)", _args)
def _uq(args: argparse.Namespace) -> dict:
    mean = mean_uq(args.size, args.structure, args.neighbors, args.numbering)
    ids = numbering(args.numbering, args.size, args.size)
    return {"mean_uq": mean, "round1": uq_round(args.structure, ids, 1, args.neighbors)}

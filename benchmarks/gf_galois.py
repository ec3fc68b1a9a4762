"""GF(2⁸): our numpy arithmetic (vizcoll.erasure.gf) against galois, on the erasure code's sizes.

Run ``python3 benchmarks/gf_galois.py [--repeat 5] [--quick]``. It needs galois (``pip install galois``, which
pulls in numba and llvmlite, and is not a dependency of vizcoll). Without it the script says so in one line on
stderr and exits with status 2. docs/design.md ("GF(2⁸) arithmetic instead of galois") quotes its figures.

galois's field is built as ``galois.GF(2**8, irreducible_poly=0x11D)``, the same field as ours. Printed as one
JSON document:

- ``versions``: galois, numba, numpy and Python.
- ``galois_first_call_s``: galois compiles with numba on first use. The first matrix product and the first rank
  of a 4 x 4 matrix and the first inverse of the 4 x 4 identity, in this process, before any other galois call.
  ``galois_later_rank_4x4_s``: a later rank of the same matrix.
- ``codes``: for FMEL(6,2) and FMEL(9,5) on 3 DCs with 1 MiB blocks and RS(32,16) with 64 KiB blocks, encoding
  (the n coded blocks as ``Gᵀ · data``) and decoding (invert the k x k matrix of the first k surviving blocks,
  the parities first, that have rank k, then multiply), ours and galois's. Every result is checked to be equal
  both ways (ours against galois's, and the decoded blocks against the data).
- ``is_mds``: the rank of every k-subset of columns of RS(16,8) and RS(20,10): ours is one call of
  :func:`~vizcoll.erasure.tolerance.is_mds` (the batched elimination), galois's one ``np.linalg.matrix_rank``
  per subset (it only takes 2-D matrices), run once (RS(20,10) takes minutes, ``--quick`` skips it).
- ``start_up_s``: ``import galois`` plus building the field, and ``import vizcoll.erasure.gf``, each in a fresh
  Python process.

The first calls and galois's rank loops run once. Every other figure is the best of ``--repeat`` runs (the
machine is shared). All are in seconds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.event_core import best_of  # noqa: E402
from vizcoll.erasure import gf as ours  # noqa: E402
from vizcoll.erasure.codes import reed_solomon  # noqa: E402
from vizcoll.erasure.fmel import fmel  # noqa: E402
from vizcoll.erasure.tolerance import is_mds  # noqa: E402

try:  # optional: only the comparison needs it
    import galois
    from galois import GF  # fails on a bare galois/ folder (numba's cache left behind by pip uninstall)
except ImportError:
    galois = GF = None

MISSING = "galois is missing: pip install galois to compare (it is not a dependency of vizcoll)"
FIELD = "galois.GF(2**8, irreducible_poly=0x11D)"


def _s(seconds: float) -> float:
    return round(seconds, 6)


def versions() -> dict:
    import numba  # galois's dependency: there whenever galois is

    return {
        "galois": galois.__version__,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def first_calls(field, rng: np.random.Generator, repeat: int) -> dict:
    """galois's first matrix product, rank and inverse (numba compiles them), then a later rank."""
    a = field(rng.integers(0, 256, (4, 4), dtype=np.uint8))
    first = {
        "matmul": best_of(lambda: a @ a, 1)[0],
        "rank": best_of(lambda: np.linalg.matrix_rank(a), 1)[0],
        "inv": best_of(lambda: np.linalg.inv(field(np.eye(4, dtype=np.uint8))), 1)[0],
    }
    later, _ = best_of(lambda: np.linalg.matrix_rank(a), repeat)
    return {"galois_first_call_s": {k: _s(v) for k, v in first.items()}, "galois_later_rank_4x4_s": _s(later)}


def survivors(g: np.ndarray) -> list[int]:
    """The first k columns, counted from the end (the parities first), whose k x k matrix has rank k."""
    k, n = g.shape
    for cols in itertools.combinations(range(n - 1, -1, -1), k):
        if ours.gf_rank(g[:, list(cols)]) == k:
            return list(cols)
    raise ValueError("no k columns of rank k")


def code_run(field, g: np.ndarray, size: int, rng: np.random.Generator, repeat: int) -> dict:
    """Encode ``size``-byte blocks with ``g`` and decode them from survivors, ours and galois's, checked equal."""
    k, _ = g.shape
    data = rng.integers(0, 256, (k, size), dtype=np.uint8)
    g_t, data_gf = field(g.T.copy()), field(data)
    enc_ours, coded = best_of(lambda: ours.gf_matmul(g.T, data), repeat)
    enc_galois, coded_galois = best_of(lambda: g_t @ data_gf, repeat)
    assert np.array_equal(coded, np.asarray(coded_galois)), "encodings differ"

    surv = survivors(g)
    kept = coded[surv]
    kept_gf = field(kept)
    dec_ours, decoded = best_of(lambda: ours.gf_matmul(ours.gf_inv_matrix(g[:, surv].T), kept), repeat)
    dec_galois, decoded_galois = best_of(lambda: np.linalg.inv(field(g[:, surv].T.copy())) @ kept_gf, repeat)
    assert np.array_equal(decoded, data), "our decoding differs from the data"
    assert np.array_equal(np.asarray(decoded_galois), data), "galois's decoding differs from the data"
    return {
        "k": k,
        "n": g.shape[1],
        "block_bytes": size,
        "survivors": surv,
        "encode_ours_s": _s(enc_ours),
        "encode_galois_s": _s(enc_galois),
        "decode_ours_s": _s(dec_ours),
        "decode_galois_s": _s(dec_galois),
    }


def codes(field, rng: np.random.Generator, repeat: int) -> dict:
    runs = {
        "FMEL(6,2) on 3 DCs, 1 MiB blocks": (fmel(6, 2, 3).generator, 1 << 20),
        "FMEL(9,5) on 3 DCs, 1 MiB blocks": (fmel(9, 5, 3).generator, 1 << 20),
        "RS(32,16), 64 KiB blocks": (reed_solomon(32, 16, 4).generator, 1 << 16),
    }
    return {name: code_run(field, g, size, rng, repeat) for name, (g, size) in runs.items()}


def galois_all_ranks(field, g: np.ndarray) -> bool:
    """Is every k-subset of columns of ``g`` of rank k? One ``np.linalg.matrix_rank`` per subset."""
    k, n = g.shape
    m = field(g)
    return all(np.linalg.matrix_rank(m[:, list(cols)]) == k for cols in itertools.combinations(range(n), k))


def mds_run(field, n: int, k: int, repeat: int, skip_galois: bool) -> dict:
    """``is_mds`` of RS(n,k) ours (batched) and galois's loop (once), both checked True."""
    g = reed_solomon(n, k, 1).generator
    t_ours, ours_mds = best_of(lambda: is_mds(g), repeat)
    assert ours_mds is True, f"is_mds(RS({n},{k})) is {ours_mds}"
    out = {"subsets": math.comb(n, k), "matrix": f"{k}x{k}", "ours_s": _s(t_ours)}
    if skip_galois:
        out["galois_loop_s"] = "skipped (--quick)"
        return out
    t_galois, galois_mds = best_of(lambda: galois_all_ranks(field, g), 1)
    assert galois_mds is True, f"galois finds RS({n},{k}) not MDS"
    out["galois_loop_s"] = _s(t_galois)
    return out


def fresh_import(code: str, repeat: int) -> float:
    """Best seconds of ``code`` (imports) in a fresh Python process started in the repository."""
    timed = f"import time\nstart = time.perf_counter()\n{code}\nprint(time.perf_counter() - start)"
    runs = []
    for _ in range(max(1, repeat)):
        done = subprocess.run([sys.executable, "-c", timed], capture_output=True, text=True, cwd=ROOT, check=True)
        runs.append(float(done.stdout))
    return _s(min(runs))


def start_up(repeat: int) -> dict:
    return {
        "import galois + GF(2^8)": fresh_import(f"import galois\n{FIELD}", repeat),
        "import vizcoll.erasure.gf": fresh_import("import vizcoll.erasure.gf", repeat),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run every measurement, print JSON. Status 2 when galois is missing."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="best of this many runs (not galois's is_mds loops)")
    ap.add_argument("--quick", action="store_true", help="skip galois's RS(20,10) loop (minutes)")
    args = ap.parse_args(argv)
    if GF is None:
        print(MISSING, file=sys.stderr)
        return 2
    field = GF(2**8, irreducible_poly=0x11D)
    rng = np.random.default_rng(0)
    result = {"versions": versions(), "field": FIELD}
    result.update(first_calls(field, rng, args.repeat))  # first: before any other galois call
    result["codes"] = codes(field, rng, args.repeat)
    result["is_mds"] = {
        f"RS({n},{k})": mds_run(field, n, k, args.repeat, args.quick and n == 20) for n, k in ((16, 8), (20, 10))
    }
    result["start_up_s"] = start_up(args.repeat)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

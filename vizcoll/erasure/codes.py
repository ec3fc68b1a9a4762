"""Erasure codes as generator matrices over GF(2^8), and their placement on data centres.

A stripe of ``k`` data blocks ``x`` is encoded into ``n`` coded blocks
``y = x G`` with a ``k × n`` generator matrix ``G``: block ``y_i`` is the
combination of the data with the coefficients of column ``i``. Block ``i`` is
stored in data centre ``placement[i]`` (0 .. N−1).

Families (each returns a :class:`Code`):

- :func:`replication` — ``r`` copies of every data block (``G = [I I … I]``);
  copy ``c`` of the whole stripe goes to DC ``c mod N``.
- :func:`reed_solomon` — systematic ``[I | C]`` with a Cauchy matrix ``C``
  (``C_ij = 1 / (x_i + y_j)``, all ``x``, ``y`` distinct), or the systematic
  form ``V_k^{-1} V`` of a Vandermonde matrix; both are MDS (every ``k``
  columns independent), which needs ``n ≤ 255`` (Vandermonde) or ``n ≤ 256``
  (Cauchy) distinct field elements.
- :func:`lrc` — Azure-style local reconstruction code: the data in ``l``
  local groups (sizes as even as possible), each with an XOR local parity,
  plus ``g`` global parities with Cauchy coefficients; ``n = k + l + g``.
  Default ``l = min(N, k, n − k)``: one local group per DC, kept together.
- :func:`code_from_generator` — any user matrix.

The searched FMEL-style code is built in :mod:`vizcoll.erasure.fmel`.

Limits (:func:`check_parameters`): ``1 ≤ k < n ≤ MAX_BLOCKS`` (32) and
``1 ≤ N ≤ MAX_DCS`` (16). The exact metrics enumerate subsets of blocks and
of DCs, and the FMEL search enumerates schemes: both grow exponentially, and
32 blocks (a stripe wider than any production code) keeps a page answer
within seconds. ``n = k`` is refused: without redundancy nothing can be
repaired.

References: Reed–Solomon [RS60]; LRC [LRC12] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vizcoll.erasure.gf import EXP, as_gf, gf_inv, gf_inv_matrix, gf_matmul, gf_pow, gf_rank
from vizcoll.errors import SpecError

__all__ = [
    "MAX_BLOCKS",
    "MAX_DCS",
    "FAMILIES",
    "Code",
    "check_parameters",
    "even_placement",
    "parse_placement",
    "replication",
    "reed_solomon",
    "cauchy_matrix",
    "lrc",
    "code_from_generator",
    "dc_sizes",
    "placement_of",
]

MAX_BLOCKS = 32
MAX_DCS = 16
FAMILIES = {"rs": "Reed–Solomon", "lrc": "Azure LRC", "replication": "replication", "fmel": "FMEL (searched)"}


@dataclass
class Code:
    """A ``k × n`` generator matrix over GF(2^8) with the DC of every block.

    A stripe of ``k`` data blocks ``x`` is encoded into ``n`` coded blocks ``y = x G``; block ``i`` is stored in
    data centre ``placement[i]``. Build one with :func:`replication`, :func:`reed_solomon`, :func:`lrc`,
    :func:`code_from_generator` or the FMEL search (:func:`vizcoll.erasure.fmel.fmel_search`).

    Parameters
    ----------
    family : str
        ``"rs"``, ``"lrc"``, ``"replication"``, ``"fmel"`` or ``"custom"``.
    name : str
        The code's name for people (``"RS(9,5)"``).
    n : int
        Coded blocks.
    k : int
        Data blocks.
    dcs : int
        Data centres ``N``.
    generator : numpy.ndarray
        The ``k × n`` generator matrix (``uint8``, GF(2^8) elements).
    placement : list of int
        The DC (``0..N-1``) of every block.
    kinds : list of str
        ``kinds[i]`` names block ``i`` ("data", "parity", "local parity", "global parity", "replica").
    data_blocks : list of int
        The systematic positions (``G`` restricted to them is the identity).
    mds : bool
        True when the construction guarantees that every ``k`` columns are independent (the metrics then use
        closed forms instead of enumerating subsets).
    params : dict
        The family's own parameters (``{"local_groups": 3, ...}``).

    Examples
    --------
    >>> code = reed_solomon(6, 4, 3)
    >>> code.overhead, code.dc_blocks()
    (1.5, [[0, 1], [2, 3], [4, 5]])
    """

    family: str
    name: str
    n: int
    k: int
    dcs: int
    generator: np.ndarray
    placement: list[int]
    kinds: list[str]
    data_blocks: list[int]
    mds: bool = False
    params: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.generator = as_gf(self.generator)
        self.placement = [int(z) for z in self.placement]

    @property
    def overhead(self) -> float:
        """Storage overhead n / k."""
        return self.n / self.k

    def dc_blocks(self) -> list[list[int]]:
        """The blocks of every DC, in block order.

        Returns
        -------
        list of list of int
            ``dc_blocks()[z]``: the blocks stored in DC ``z``.
        """
        out: list[list[int]] = [[] for _ in range(self.dcs)]
        for i, z in enumerate(self.placement):
            out[z].append(i)
        return out

    def encode(self, data) -> np.ndarray:
        """The ``n`` coded blocks of ``k`` data blocks (rows of bytes): ``G^T @ data``.

        Parameters
        ----------
        data : array_like
            ``k`` rows of bytes (or ``k`` bytes).

        Returns
        -------
        numpy.ndarray
            ``n`` rows of bytes.

        Raises
        ------
        SpecError
            When ``data`` does not have ``k`` rows.

        Examples
        --------
        >>> c = reed_solomon(4, 2, 2)
        >>> c.encode([[1, 2], [3, 4]])[:2].tolist()  # systematic: the data first
        [[1, 2], [3, 4]]
        """
        data = as_gf(data)
        if data.ndim == 1:
            data = data[:, None]
        if data.shape[0] != self.k:
            raise SpecError(f"encode needs {self.k} data blocks, got {data.shape[0]}")
        return gf_matmul(self.generator.T, data)

    def to_dict(self) -> dict:
        """JSON-serialisable form.

        Returns
        -------
        dict
            Every field, the generator as nested lists.
        """
        return {
            "family": self.family,
            "name": self.name,
            "n": self.n,
            "k": self.k,
            "dcs": self.dcs,
            "generator": self.generator.tolist(),
            "placement": list(self.placement),
            "kinds": list(self.kinds),
            "data_blocks": list(self.data_blocks),
            "mds": self.mds,
            "params": dict(self.params),
        }

    @classmethod
    def from_dict(cls, d: dict) -> Code:
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        d : dict
            What :meth:`to_dict` returned.

        Returns
        -------
        Code
            The code.
        """
        return cls(
            family=d["family"],
            name=d["name"],
            n=int(d["n"]),
            k=int(d["k"]),
            dcs=int(d["dcs"]),
            generator=np.array(d["generator"], dtype=np.uint8),
            placement=list(d["placement"]),
            kinds=list(d["kinds"]),
            data_blocks=list(d["data_blocks"]),
            mds=bool(d.get("mds", False)),
            params=dict(d.get("params", {})),
        )


# ---------------------------------------------------------------- parameters and placement
def _integer(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        try:
            if float(value) != int(float(value)):
                raise ValueError
            value = int(float(value))
        except (TypeError, ValueError, OverflowError):
            raise SpecError(f"{name} must be an integer, got {value!r}") from None
    return int(value)


def check_parameters(n, k, dcs) -> tuple[int, int, int]:
    """(n, k, N) as checked integers; raises SpecError with one clear sentence for absurd inputs.

    The limits are ``1 ≤ k < n ≤ MAX_BLOCKS`` (32) and ``1 ≤ N ≤ MAX_DCS`` (16): the exact metrics and the FMEL
    search enumerate subsets, and ``n = k`` cannot repair anything.

    Parameters
    ----------
    n : int
        Coded blocks (an integer, or a float or text holding one).
    k : int
        Data blocks.
    dcs : int
        Data centres ``N``.

    Returns
    -------
    tuple of (int, int, int)
        ``(n, k, N)``.

    Raises
    ------
    SpecError
        For a value that is not an integer or outside the limits.

    Examples
    --------
    >>> check_parameters(9, 5, 3)
    (9, 5, 3)
    >>> check_parameters(4, 5, 2)
    Traceback (most recent call last):
    ...
    vizcoll.errors.SpecError: k = 5 data blocks cannot exceed n = 4 coded blocks
    """
    n, k, dcs = _integer(n, "n"), _integer(k, "k"), _integer(dcs, "the number of data centres")
    if k < 1:
        raise SpecError(f"k (data blocks per stripe) must be at least 1, got {k}")
    if k > n:
        raise SpecError(f"k = {k} data blocks cannot exceed n = {n} coded blocks")
    if n == k:
        raise SpecError(f"n = k = {n}: a stripe without redundant blocks cannot repair anything; choose n > k")
    if n > MAX_BLOCKS:
        raise SpecError(
            f"n = {n} coded blocks is above the limit of {MAX_BLOCKS}: the exact repair and "
            "fault-tolerance checks and the FMEL search enumerate subsets of blocks"
        )
    if dcs < 1:
        raise SpecError(f"the number of data centres must be at least 1, got {dcs}")
    if dcs > MAX_DCS:
        raise SpecError(f"{dcs} data centres is above the limit of {MAX_DCS}")
    return n, k, dcs


def even_placement(n: int, dcs: int) -> list[int]:
    """Blocks 0..n−1 in consecutive runs over the DCs, sizes as even as possible (larger DCs first).

    >>> even_placement(7, 3)
    [0, 0, 0, 1, 1, 2, 2]
    """
    sizes = [n // dcs + (z < n % dcs) for z in range(dcs)]
    return [z for z, size in enumerate(sizes) for _ in range(size)]


def dc_sizes(placement: list[int], dcs: int) -> list[int]:
    """Blocks per DC."""
    return np.bincount(np.asarray(placement, dtype=np.int64), minlength=dcs).tolist()


def placement_of(blocks: list[list[int]], n: int) -> list[int]:
    """The DC of every block from the blocks of every DC (the inverse of :meth:`Code.dc_blocks`).

    >>> placement_of([[0, 2], [1]], 3)
    [0, 1, 0]
    """
    placement = [0] * n
    for z, members in enumerate(blocks):
        for b in members:
            placement[b] = z
    return placement


def parse_placement(value, n: int, dcs: int) -> list[int]:
    """A user placement (``"0,0,1,1"`` or a list) checked against n and N.

    Parameters
    ----------
    value : str or sequence of int
        One DC number per block, separated by commas or blanks, or a list.
    n : int
        Coded blocks.
    dcs : int
        Data centres ``N``.

    Returns
    -------
    list of int
        The DC of every block.

    Raises
    ------
    SpecError
        For a wrong count, a number that is not an integer, or a DC outside ``0..N-1``.

    Examples
    --------
    >>> parse_placement("0, 0 1,1", 4, 2)
    [0, 0, 1, 1]
    >>> parse_placement("0,1,5", 3, 2)
    Traceback (most recent call last):
    ...
    vizcoll.errors.SpecError: placement: block 2 is in DC 5, but the DCs are numbered 0 to 1
    """
    if isinstance(value, str):
        tokens = value.replace(",", " ").split()
        try:
            items = [int(t) for t in tokens]
        except ValueError:
            raise SpecError(f"placement must list one DC number per block, like 0,0,1,1 — got {value!r}") from None
    else:
        items = [_integer(v, "a DC number") for v in value]
    if len(items) != n:
        raise SpecError(f"placement lists {len(items)} DC numbers but the stripe has n = {n} blocks")
    for i, z in enumerate(items):
        if not 0 <= z < dcs:
            raise SpecError(f"placement: block {i} is in DC {z}, but the DCs are numbered 0 to {dcs - 1}")
    return items


def _placement(placement, n: int, dcs: int, default: list[int]) -> list[int]:
    return default if placement is None else parse_placement(placement, n, dcs)


def _systematic_positions(g: np.ndarray) -> list[int]:
    """Columns where G is an identity column (a data block stored as is), one per row."""
    out = []
    for row in range(g.shape[0]):
        unit = np.flatnonzero((g[row] == 1) & (np.count_nonzero(g, axis=0) == 1))
        free = [int(c) for c in unit if c not in out]
        if free:
            out.append(free[0])
    return out if len(out) == g.shape[0] else []


# ---------------------------------------------------------------- the families
def replication(n: int, k: int, dcs: int, placement=None) -> Code:
    """``r = n / k`` copies of every data block; copy ``c`` of the stripe in DC ``c mod N``.

    Parameters
    ----------
    n : int
        Coded blocks, a multiple of ``k``.
    k : int
        Data blocks.
    dcs : int
        Data centres ``N``.
    placement : str or sequence of int, optional
        The DC of every block (:func:`parse_placement`); default copy ``c`` in DC ``c mod N``.

    Returns
    -------
    Code
        ``G = [I I … I]``, MDS when ``k = 1``.

    Raises
    ------
    SpecError
        For bad parameters or ``n`` not a multiple of ``k``.

    Examples
    --------
    >>> c = replication(3, 1, 3)
    >>> c.generator.tolist(), c.placement
    ([[1, 1, 1]], [0, 1, 2])
    """
    n, k, dcs = check_parameters(n, k, dcs)
    if n % k:
        raise SpecError(f"replication stores every data block r times: n = {n} must be a multiple of k = {k}")
    copies = n // k
    g = np.tile(np.eye(k, dtype=np.uint8), (1, copies))
    default = [(i // k) % dcs for i in range(n)]
    kinds = ["data" if i < k else "replica" for i in range(n)]
    return Code(
        "replication",
        f"{copies} replicas" if k == 1 else f"{copies}× replication (k = {k})",
        n,
        k,
        dcs,
        g,
        _placement(placement, n, dcs, default),
        kinds,
        list(range(k)),
        mds=(k == 1),
        params={"copies": copies},
    )


def cauchy_matrix(rows: int, cols: int, offset: int = 0) -> np.ndarray:
    """``C_ij = 1 / (x_i + y_j)`` with ``x_i = offset + i`` and ``y_j = offset + rows + j`` (all distinct).

    Every square submatrix of a Cauchy matrix is invertible.
    """
    if offset + rows + cols > 256:
        raise SpecError(f"a {rows} × {cols} Cauchy matrix needs {rows + cols} distinct elements of GF(2^8)")
    x = np.arange(offset, offset + rows)[:, None]
    y = np.arange(offset + rows, offset + rows + cols)[None, :]
    return gf_inv((x ^ y).astype(np.uint8))


def reed_solomon(n: int, k: int, dcs: int, placement=None, construction: str = "cauchy") -> Code:
    """Systematic Reed–Solomon (MDS) code, from a Cauchy or a Vandermonde matrix.

    ``G = [I | C]`` with a Cauchy matrix ``C`` (``C_ij = 1 / (x_i + y_j)``, all ``x``, ``y`` distinct), or the
    systematic form ``V_k^{-1} V`` of a Vandermonde matrix; both are MDS (every ``k`` columns independent).

    Parameters
    ----------
    n : int
        Coded blocks.
    k : int
        Data blocks.
    dcs : int
        Data centres ``N``.
    placement : str or sequence of int, optional
        The DC of every block (:func:`parse_placement`); default :func:`even_placement`.
    construction : str
        ``"cauchy"`` (default) or ``"vandermonde"`` (needs ``n ≤ 255``).

    Returns
    -------
    Code
        Family ``"rs"``, named ``RS(n,k)``.

    Raises
    ------
    SpecError
        For bad parameters or an unknown construction.

    References
    ----------
    [RS60] I. S. Reed, G. Solomon, "Polynomial Codes over Certain Finite Fields", Journal of the Society for
    Industrial and Applied Mathematics, 8(2): 300–304, 1960, DOI [10.1137/0108018](https://doi.org/10.1137/0108018).

    Examples
    --------
    >>> c = reed_solomon(6, 2, 3)
    >>> c.generator[:, :2].tolist(), c.mds, c.placement
    ([[1, 0], [0, 1]], True, [0, 0, 1, 1, 2, 2])
    """
    n, k, dcs = check_parameters(n, k, dcs)
    if construction == "cauchy":
        g = np.concatenate([np.eye(k, dtype=np.uint8), cauchy_matrix(k, n - k)], axis=1)
    elif construction == "vandermonde":
        if n > 255:
            raise SpecError(f"a Vandermonde RS code needs n ≤ 255 distinct non-zero points, got n = {n}")
        points = EXP[:n]  # α^0 .. α^(n−1), distinct
        vander = np.array([gf_pow(points, i) for i in range(k)], dtype=np.uint8)
        g = gf_matmul(gf_inv_matrix(vander[:, :k]), vander)
    else:
        raise SpecError(f"unknown RS construction {construction!r}; choose cauchy or vandermonde")
    kinds = ["data"] * k + ["parity"] * (n - k)
    return Code(
        "rs",
        f"RS({n},{k})",
        n,
        k,
        dcs,
        g,
        _placement(placement, n, dcs, even_placement(n, dcs)),
        kinds,
        list(range(k)),
        mds=True,
        params={"construction": construction},
    )


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (j < total % parts) for j in range(parts)]


def lrc(n: int, k: int, dcs: int, local_groups: int | None = None, placement=None) -> Code:
    """Azure-style LRC: ``l`` local groups with an XOR parity each, ``g = n − k − l`` global parities.

    Block order: group 0's data then its local parity, group 1 …, then the
    global parities. Group ``j`` lives in DC ``j mod N``; each global parity
    goes to the DC with the fewest blocks so far. The global parities have Cauchy coefficients.

    Parameters
    ----------
    n : int
        Coded blocks, ``k + l + g``.
    k : int
        Data blocks (split into the groups as evenly as possible).
    dcs : int
        Data centres ``N``.
    local_groups : int, optional
        ``l``; default ``min(N, k, n − k)``: one local group per DC, kept together.
    placement : str or sequence of int, optional
        The DC of every block (:func:`parse_placement`).

    Returns
    -------
    Code
        Family ``"lrc"``; ``params`` holds ``local_groups``, ``global_parities`` and each block's ``group``.

    Raises
    ------
    SpecError
        For bad parameters, ``l`` outside ``1..k``, or ``n < k + l``.

    References
    ----------
    [LRC12] Cheng Huang et al., "Erasure Coding in Windows Azure Storage", USENIX ATC 2012, pp. 15–26 (no DOI:
    https://www.usenix.org/conference/atc12/technical-sessions/presentation/huang).

    Examples
    --------
    >>> c = lrc(9, 5, 3)
    >>> c.kinds
    ['data', 'data', 'local parity', 'data', 'data', 'local parity', 'data', 'local parity', 'global parity']
    >>> c.placement
    [0, 0, 0, 1, 1, 1, 2, 2, 2]
    """
    n, k, dcs = check_parameters(n, k, dcs)
    l = min(dcs, k, n - k) if local_groups is None else _integer(local_groups, "the number of local groups")  # noqa: E741
    if not 1 <= l <= k:
        raise SpecError(f"an LRC needs 1 to k = {k} local groups, got {l}")
    g = n - k - l
    if g < 0:
        raise SpecError(f"an LRC with {l} local groups needs n ≥ k + {l} = {k + l}, got n = {n}")
    sizes = _split(k, l)
    gen = np.zeros((k, n), dtype=np.uint8)
    kinds: list[str] = []
    default: list[int] = []
    groups: list[int] = []
    data_blocks: list[int] = []
    col = 0
    first = 0
    for j, size in enumerate(sizes):
        for d in range(size):
            gen[first + d, col] = 1
            data_blocks.append(col)
            kinds.append("data")
            default.append(j % dcs)
            groups.append(j)
            col += 1
        gen[first : first + size, col] = 1  # XOR local parity
        kinds.append("local parity")
        default.append(j % dcs)
        groups.append(j)
        col += 1
        first += size
    if g:
        gen[:, col:] = cauchy_matrix(g, k).T  # global parity h: Σ_j 1/(x_h + y_j) x_j
    counts = np.bincount(default, minlength=dcs).tolist()
    for _ in range(g):
        z = int(np.argmin(counts))
        default.append(z)
        counts[z] += 1
        kinds.append("global parity")
        groups.append(-1)
    return Code(
        "lrc",
        f"LRC({n},{k}; l={l}, g={g})",
        n,
        k,
        dcs,
        gen,
        _placement(placement, n, dcs, default),
        kinds,
        data_blocks,
        mds=False,
        params={"local_groups": l, "global_parities": g, "group": groups},
    )


def code_from_generator(generator, dcs: int, placement=None, name: str = "custom") -> Code:
    """A code from any ``k × n`` matrix of integers 0..255 of rank k.

    >>> code_from_generator([[1, 0, 1], [0, 1, 1]], 3).data_blocks
    [0, 1]
    """
    try:
        g = as_gf(generator)
    except ValueError as exc:
        raise SpecError(f"generator: {exc}") from None
    if g.ndim != 2 or g.size == 0:
        raise SpecError("the generator must be a non-empty k × n matrix")
    k, n = g.shape
    n, k, dcs = check_parameters(n, k, dcs)
    if gf_rank(g) < k:
        raise SpecError(f"the generator's {k} rows are linearly dependent: it encodes fewer than k = {k} blocks")
    if not np.all(g.any(axis=0)):
        zero = int(np.flatnonzero(~g.any(axis=0))[0])
        raise SpecError(f"column {zero} of the generator is zero: that block stores nothing")
    data = _systematic_positions(g)
    kinds = ["data" if i in data else "parity" for i in range(n)]
    return Code("custom", name, n, k, dcs, g, _placement(placement, n, dcs, even_placement(n, dcs)), kinds, data)

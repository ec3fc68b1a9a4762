"""The cost model of hardware-offloaded collectives (the Sunway aggregation-tree paper, eq. 2–11, Tables 2 and 3).

All times are in microseconds (μs), sizes in bytes, bandwidths in bytes per μs
(1 GB/s = 1000 B/μs). The symbols are the paper's (Table 1):

=========  =====================================================================
symbol     meaning
=========  =====================================================================
``l``      time of one message over one network link
``delta``  δ, hops of any unicast route (assumed equal for all pairs)
``theta``  θ, match time of one aggregation packet
``beta``   β, link bandwidth (the paper prints ``S′β``: it is ``S′/β``)
``gamma``  γ, reduce time per byte
``S``      user message size (≤ 2 KB)
``S'``     aggregation packet size (:attr:`CostParams.S_prime`, default ``S``)
``S*``     reduced data length (:attr:`CostParams.S_star`, default ``S``)
``P``      number of processes
``k``      width of a k-ary tree or base of a k-nomial tree
=========  =====================================================================

and ``a = δ·l``, ``b = θ + S'/β + S*·γ``:

- eq. 2, any tree: ``T = r·l + h·k·b`` (:func:`t_aggregate`);
- eq. 3, type I complete tree: ``T ≈ log_k P · (a + k·b)`` (:func:`t_type_one`);
- eq. 4, type II: ``T ≈ a/2 + ⌈log_k P⌉·k·b`` (:func:`t_type_two`);
- eq. 5/6: ``F(k) = log_k P · (a + k·b)`` and its derivative (:func:`f_width`,
  :func:`f_width_prime`); :func:`kopt` the best width and the tolerance interval;
- eq. 7–11: the type I / type II decision ``F(d, k, P, S)`` (:func:`f_decision`)
  and :func:`selection_table` (Table 3).

**Paper example (section 3.1).** ``P = 512, a = 1.12, b = 0.01``: the model gives
``k* = 41`` (real root of ``k(ln k − 1) = 112``: 41.2) and, for ε = 0.1 μs,
``|F(k) − F*| ≤ ε`` exactly for ``24 ≤ k ≤ 69``. The text says 24 ≤ k ≤ 64:
``F(64) − F* = 0.070``, ``F(69) − F* = 0.097``, ``F(70) − F* = 0.102``; the
paper's interval stops at 64 because it never uses wider trees (Table 2 never
lists a k above 64, 64 is the widest tree of its experiments), so
``kopt(512, 1.12, 0.01, k_limit=64)`` gives exactly [24, 64]. The interval is
inclusive (``≤``, as printed); at ε = 0.1 no k lies on the boundary, so a strict
inequality gives the same interval.

References: [AGGT24, eq. 2–11, Tables 1–3] (keys: ``docs/papers.md``).

>>> r = kopt(512, 1.12, 0.01)
>>> r["k_star"], round(r["F_star"], 4), r["kmin"], r["kmax"]
(41, 2.5702, 24, 69)
>>> kopt(512, 1.12, 0.01, k_limit=64)["kmax"]
64
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from vizcoll.errors import SpecError

__all__ = [
    "CostParams",
    "TABLE2_SIZES",
    "POWER_OF_TWO_WIDTHS",
    "SUNWAY",
    "t_aggregate",
    "t_type_one",
    "t_type_two",
    "f_width",
    "f_width_prime",
    "k_star_real",
    "kopt",
    "recommended_k",
    "table2",
    "packet_cost",
    "f_decision",
    "df_dP",
    "df_dS",
    "choose_tree_type",
    "selection_table",
]

TABLE2_SIZES = (0, 32, 64, 128, 256, 512, 1024, 2048)
"""Packet sizes (bytes) of the rows of the paper's Table 2 (0 = Barrier/Bcast)."""

POWER_OF_TWO_WIDTHS = (2, 4, 8, 16, 32, 64)
"""Widths the paper recommends from (every "recommended k" of Tables 2 and 3 is one of them)."""


@dataclass(frozen=True)
class CostParams:
    """Parameters of the cost model; the defaults model the paper's Sunway test system.

    All times are in microseconds (μs), sizes in bytes, bandwidths in bytes per μs (1 GB/s = 1000 B/μs); the
    symbols are the paper's (Table 1). The derived ``a = δ·l`` and ``b = θ + S'/β + S*·γ`` are properties.
    Construction raises :class:`~vizcoll.errors.SpecError` for a negative ``l``, ``delta``, ``theta``, ``gamma`` or
    ``S``, a bandwidth ``beta <= 0``, ``P < 1`` or ``k < 2``.

    Attributes
    ----------
    l : float
        μs per network link. 0.28: with ``delta = 4`` this gives the paper's
        ``a = δ·l = 1.12`` μs.
    delta : int
        δ, hops of a unicast route: 4 between ports on different leaves of the
        supernode's 2-level fat tree (port → leaf → spine → leaf → port).
    theta : float
        θ, μs to match one aggregation packet: 0.01, the paper's ``b`` for
        Barrier/Bcast, whose packets carry no data (``S' = S* = 0``).
    beta : float
        β, link bandwidth in bytes/μs: 16 000 (16 GB/s, an assumption).
    gamma : float
        γ, μs of reduction per byte: 3.75e-5. Only the sum ``1/β + γ`` = 1e-4
        μs/B is fitted (it reproduces the Reduce rows of Table 2, see
        :func:`table2`); the split between the two terms is an assumption.
    S : int
        User message size in bytes (0 = Barrier/Bcast).
    S_prime : int or None
        S', the aggregation packet size; None = ``S``.
    S_star : int or None
        S*, the reduced data length; None = ``S``.
    P : int
        Number of processes (512: one supernode, one process per port).
    k : int
        Tree width / k-nomial base (32, the paper's choice for short messages).

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). Table 1 (symbols), section
    3.1 (the Sunway figures).

    Examples
    --------
    >>> p = CostParams()
    >>> round(p.a, 2), p.b
    (1.12, 0.01)
    >>> round(p.replace(S=1024).b, 4)
    0.1124
    """

    l: float = 0.28  # noqa: E741 - the paper's symbol
    delta: int = 4
    theta: float = 0.01
    beta: float = 16000.0
    gamma: float = 3.75e-5
    S: int = 0
    S_prime: int | None = None
    S_star: int | None = None
    P: int = 512
    k: int = 32

    def __post_init__(self) -> None:
        for name in ("l", "delta", "theta", "gamma", "S"):
            if getattr(self, name) < 0:
                raise SpecError(f"cost parameter {name} must be >= 0, got {getattr(self, name)!r}")
        if self.beta <= 0:
            raise SpecError(f"the bandwidth beta must be > 0, got {self.beta!r}")
        if self.P < 1 or self.k < 2:
            raise SpecError(f"need P >= 1 and k >= 2, got P={self.P!r}, k={self.k!r}")

    @property
    def packet(self) -> int:
        """S', the aggregation packet size in bytes."""
        return self.S if self.S_prime is None else self.S_prime

    @property
    def reduced(self) -> int:
        """S*, the reduced data length in bytes."""
        return self.S if self.S_star is None else self.S_star

    @property
    def a(self) -> float:
        """``a = δ·l``: link time of one unicast route (μs)."""
        return self.delta * self.l

    @property
    def b(self) -> float:
        """``b = θ + S'/β + S*·γ``: time to handle one aggregation packet in a node (μs)."""
        return self.theta + self.packet / self.beta + self.reduced * self.gamma

    def replace(self, **changes) -> CostParams:
        """A copy with some fields changed."""
        return replace(self, **changes)


SUNWAY = CostParams()
"""The default parameters (the paper's Sunway supernode)."""


def _params(params: CostParams | None) -> CostParams:
    return SUNWAY if params is None else params


def _log(x: float, base: float) -> float:
    return math.log(x) / math.log(base)


def _check_pk(P: float, k: float) -> None:
    if P < 1 or k <= 1:
        raise SpecError(f"need P >= 1 and k > 1, got P={P!r}, k={k!r}")


# ---------------------------------------------------------------- eq. 2-4
def t_aggregate(height: int, radius: int, k: float | None = None, params: CostParams | None = None) -> float:
    """Eq. 2: ``T_aggregate = r·l + h·k·b`` for a tree of height ``h`` and radius ``r`` (μs).

    ``k`` defaults to ``params.k``.

    >>> round(t_aggregate(2, 8, 32), 4)  # a 32-ary tree over 512 ports: 8 links, 2 levels
    2.88
    """
    p = _params(params)
    k = p.k if k is None else k
    return radius * p.l + height * k * p.b


def t_type_one(P: int | None = None, k: float | None = None, params: CostParams | None = None) -> float:
    """Eq. 3: ``T_I ≈ log_k P · (δ·l + k·b)`` (complete k-ary type I tree, equal routes)."""
    p = _params(params)
    P, k = (p.P if P is None else P), (p.k if k is None else k)
    _check_pk(P, k)
    return _log(P, k) * (p.a + k * p.b)


def t_type_two(P: int | None = None, k: float | None = None, params: CostParams | None = None) -> float:
    """Eq. 4: ``T_II ≈ δ·l/2 + ⌈log_k P⌉ · k·b`` (type II tree in the switches)."""
    p = _params(params)
    P, k = (p.P if P is None else P), (p.k if k is None else k)
    _check_pk(P, k)
    return p.a / 2 + _ceil_log(P, k) * k * p.b


def _ceil_log(P: int, k: float) -> int:
    """``⌈log_k P⌉`` without floating-point surprises for integer ``k``."""
    if float(k).is_integer():
        n, span = 0, 1
        while span < P:
            span, n = span * int(k), n + 1
        return n
    return math.ceil(_log(P, k) - 1e-12)


# ---------------------------------------------------------------- eq. 5-6: the width k
def f_width(k: float, P: float, a: float, b: float) -> float:
    """Eq. 5: ``F(k) = log_k P · (a + k·b)``."""
    _check_pk(P, k)
    return _log(P, k) * (a + k * b)


def f_width_prime(k: float, P: float, a: float, b: float) -> float:
    """Eq. 6: ``F'(k) = ln P · [k·b·(ln k − 1) − a] / (k·ln² k)``."""
    _check_pk(P, k)
    return math.log(P) * (k * b * (math.log(k) - 1) - a) / (k * math.log(k) ** 2)


def k_star_real(a: float, b: float) -> float:
    """The real ``k > 1`` with ``F'(k) = 0``, i.e. ``k·(ln k − 1) = a/b``.

    ``f(k) = k(ln k − 1)`` increases for ``k > 1`` and is negative below ``e``,
    so the root is ``>= e`` (``e`` itself when ``a = 0``).

    >>> round(k_star_real(1.12, 0.01), 2)
    41.2
    """
    _check_ab(a, b)
    target = a / b
    if target == 0:
        return math.e
    hi = 2 * math.e
    while hi * (math.log(hi) - 1) < target:
        hi *= 2
    from scipy.optimize import brentq  # here, not at import: scipy.optimize alone doubles the CLI's start-up

    return brentq(lambda k: k * (math.log(k) - 1) - target, math.e, hi, xtol=1e-12)


def _check_ab(a: float, b: float) -> None:
    if not (a >= 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
        raise SpecError(f"need a >= 0 and b > 0 (finite), got a={a!r}, b={b!r}")


def _last_true(pred, lo: int, hi: int) -> int:
    """Largest ``x`` in ``[lo, hi]`` with ``pred(x)`` true, given ``pred(lo)`` and ``pred`` true then false."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if pred(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def kopt(P: int, a: float, b: float, eps: float = 0.1, k_limit: int | None = None) -> dict:
    """The integer width minimising eq. 5 and the widths within ``eps`` of the optimum.

    Parameters
    ----------
    P : int
        Number of processes (>= 2).
    a, b : float
        ``a = δ·l`` and ``b = θ + S'/β + S*·γ`` in μs (``b > 0``).
    eps : float
        Tolerance ε in μs.
    k_limit : int, optional
        Largest width allowed (a hardware limit on children); None = no limit.

    Returns
    -------
    dict
        ``k_star`` (integer ``k >= 2`` minimising ``F``, the smaller on a tie),
        ``F_star = F(k_star)``, and ``kmin``/``kmax``: the widest integer
        interval around ``k_star`` with ``|F(k) − F*| <= eps`` (inclusive) —
        every k in it qualifies and no other does, because ``F`` decreases up
        to the real optimum (:func:`k_star_real`) and increases after it.

    Raises
    ------
    SpecError
        If ``P < 2``, ``eps < 0``, ``k_limit < 2`` or ``b`` is not positive.

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). Eq. 5–6 and the example of
    section 3.1.

    Examples
    --------
    >>> r = kopt(512, 1.12, 0.01)
    >>> r["k_star"], r["kmin"], r["kmax"]
    (41, 24, 69)
    """
    if P < 2:
        raise SpecError(f"kopt needs at least 2 processes, got P={P!r}")
    if not eps >= 0:
        raise SpecError(f"the tolerance eps must be >= 0, got {eps!r}")
    if k_limit is not None and k_limit < 2:
        raise SpecError(f"k_limit must be >= 2, got {k_limit!r}")
    real = k_star_real(a, b)
    top = math.inf if k_limit is None else k_limit
    candidates = {min(max(2, c), top) for c in (math.floor(real), math.ceil(real))}
    k_star = min(sorted(candidates), key=lambda k: f_width(k, P, a, b))
    f_star = f_width(k_star, P, a, b)
    near = lambda k: f_width(k, P, a, b) - f_star <= eps  # F(k) >= F* for every integer k
    kmin = k_star - _last_true(lambda d: near(k_star - d), 0, k_star - 2)
    hi = 1
    while k_star + hi <= top and near(k_star + hi):
        hi *= 2
    upper = int(min(hi, top - k_star))
    kmax = k_star + _last_true(lambda d: near(k_star + d), 0, upper)
    return {"k_star": int(k_star), "F_star": f_star, "kmin": int(kmin), "kmax": int(kmax)}


def recommended_k(P: int, a: float, b: float, widths: Sequence[int] = POWER_OF_TWO_WIDTHS) -> int:
    """The width of ``widths`` with the smallest ``F`` (eq. 5): Table 2's "recommended k".

    Every recommended k of Table 2 is the power of two (<= 64) minimising F.
    """
    return min(widths, key=lambda k: (f_width(k, P, a, b), k))


# ---------------------------------------------------------------- Table 2
def table2(
    params: CostParams | None = None,
    sizes: Iterable[int] = TABLE2_SIZES,
    eps: float = 0.2,
    header: int = 16,
    k_limit: int | None = 64,
    widths: Sequence[int] = POWER_OF_TWO_WIDTHS,
) -> list[dict]:
    """Table 2 (type I widths per packet size) derived from the model.

    Size 0 is the Barrier/Bcast row: ``b = θ``. The other sizes are
    Reduce/Allreduce packets with ``S* = S`` data bytes and ``S' = S + header``
    bytes on the wire.

    How far Table 2 can be derived (defaults, ``P = 512``, ``a = 1.12``):

    - the **Reduce/Allreduce rows are reproduced exactly** (kmin, kmax and the
      recommended k of all seven rows) with ``b(S) = 0.011 + 1e-4·S`` μs and
      ``ε = 0.2`` μs. That is ``1/β + γ = 1e-4`` μs/B, and the extra 0.001 μs
      over the Barrier θ is modelled as a 16-byte packet header
      (``16 / β``). With ``ε = 0.1`` (the value of the text's example) the
      intervals are too narrow (e.g. [21, 55] for 32 B instead of [16, 63]);
    - the **recommended k** is the power of two minimising F
      (:func:`recommended_k`): 32, 32, 32, 16, 16, 16, 8, 8 as in the paper;
    - the **Barrier/Bcast row is not**: the model gives [20, 64] at ε = 0.2
      (and [24, 64] at ε = 0.1, the text's example) where Table 2 prints
      [32, 64]; no single ε gives kmin = 32 and kmax >= 64 with ``b = 0.01``
      (it needs ε < F(31) − F* = 0.028, but F(64) − F* = 0.070). Its recommended k, 32,
      is reproduced.

    ``k_limit = 64``: the paper never lists a width above 64.

    Returns
    -------
    list of dict
        One row per size: ``message``, ``packet_bytes``, ``b``, ``k_star``,
        ``kmin``, ``kmax``, ``recommended_k``.
    """
    p = _params(params)
    rows = []
    for size in sizes:
        if size == 0:
            msg, b = "Barrier/Bcast", p.theta
        else:
            msg, b = "Reduce/Allreduce", packet_cost(size, p, header)
        res = kopt(p.P, p.a, b, eps, k_limit)
        rows.append(
            {
                "message": msg,
                "packet_bytes": int(size),
                "b": b,
                "k_star": res["k_star"],
                "kmin": res["kmin"],
                "kmax": res["kmax"],
                "recommended_k": recommended_k(p.P, p.a, b, widths),
            }
        )
    return rows


# ---------------------------------------------------------------- eq. 7-11: type I or type II
def packet_cost(S: float, params: CostParams | None = None, header: float = 0) -> float:
    """``b(S) = θ + (S + header)/β + S·γ``: eq. 7–11 take ``S' = S* = S`` (``header = 0``)."""
    p = _params(params)
    return p.theta + (S + header) / p.beta + S * p.gamma


def f_decision(d: int, k: int, P: int, S: float, params: CostParams | None = None, header: float = 0) -> float:
    """Eq. 9: ``F(d, k, P, S) = T_I − T_II = (log_k P − 0.5)·a + (k·log_k P − d·log_d P)·b``.

    ``T_I`` is eq. 7 (type I, width ``k``), ``T_II`` eq. 8 (type II, a d-ary
    tree of switches). Positive: the type II tree is faster.
    """
    p = _params(params)
    _check_pk(P, k)
    _check_pk(P, d)
    b = packet_cost(S, p, header)
    return (_log(P, k) - 0.5) * p.a + (k * _log(P, k) - d * _log(P, d)) * b


def df_dP(
    d: int, k: int, P: int, S: float, params: CostParams | None = None, header: float = 0, printed: bool = False
) -> float:
    """Eq. 10: ``∂F/∂P``.

    The exact derivative of eq. 9 is ``(a + k·b − d·b·ln k / ln d) / (P·ln k)``
    (= ``[a/ln k + b·(k/ln k − d/ln d)] / P``). ``printed=True`` returns the
    paper's printed form ``(a + k·b·ln k − d·b·ln d) / P``, which is not the
    derivative of eq. 9 (it drops the ``1/ln`` factors).
    """
    p = _params(params)
    b = packet_cost(S, p, header)
    if printed:
        return (p.a + k * b * math.log(k) - d * b * math.log(d)) / P
    return (p.a / math.log(k) + b * (k / math.log(k) - d / math.log(d))) / P


def df_dS(d: int, k: int, P: int, params: CostParams | None = None) -> float:
    """Eq. 11: ``∂F/∂S = (1/β + γ)·(k·log_k P − d·log_d P)``."""
    p = _params(params)
    return (1 / p.beta + p.gamma) * (k * _log(P, k) - d * _log(P, d))


def choose_tree_type(
    S: float,
    d: int | None,
    P: int | None = None,
    params: CostParams | None = None,
    header: float = 0,
    widths: Sequence[int] = POWER_OF_TWO_WIDTHS,
) -> tuple[str, int]:
    """``("II", d)`` if a d-ary type II tree is at least as fast (eq. 9 >= 0), else ``("I", k)``.

    ``k`` is the type I width :func:`recommended_k` picks for the packet cost
    ``b(S)``; ``d = None`` means no type II tree can be built.
    """
    p = _params(params)
    P = p.P if P is None else P
    k = recommended_k(P, p.a, packet_cost(S, p, header), widths)
    if d is not None and f_decision(d, k, P, S, p, header) >= 0:
        return "II", int(d)
    return "I", int(k)


def selection_table(
    params: CostParams | None = None,
    degrees: Sequence[int | None] = (16, 64, None),
    sizes: Iterable[int] | None = None,
    P: int | None = None,
    header: float = 16,
    widths: Sequence[int] = POWER_OF_TWO_WIDTHS,
) -> list[dict]:
    """Table 3: tree type and width per switch degree ``d`` and packet size, from eq. 7–9.

    For every ``d`` (None = no type II tree available) and every size of
    ``sizes`` (default every byte count 0..2048) :func:`choose_tree_type`
    decides; consecutive sizes with the same decision form one row. A row's
    ``range`` is written like the paper's: ``[lo, hi]`` for the first row of a
    degree, ``(prev, hi]`` after it, where ``prev`` is the previous row's last
    size. ``header`` (16, as in :func:`table2`) keeps ``b(S)`` the one that
    reproduces Table 2.

    Shape and differences (defaults, ``P = 512``; paper → model):

    - ``d = 16``: (0, 2048] II 16 → [0, 2048] II 16. Same: a 16-ary type II
      tree is as tall as the best type I tree and has half its links;
    - ``d = 64``: [0, 323] II 64 → [0, 216] II 64 (eq. 9 with k = 16 changes
      sign at ``b = 1.75·a/60 = 0.0327`` μs); (323, 512] I 16 → (216, 589]
      I 16; (512, 2048] I 8 → (589, 2048] I 8 (the width drops from 16 to 8
      where ``F(8) = F(16)``, ``b = a/16 = 0.07`` μs);
    - no type II: [0, 64] I 32 → [0, 123] I 32 (``F(16) = F(32)`` at
      ``b = 0.0233`` μs); (64, 512] I 16 → (123, 589] I 16; (512, 2048] I 8 →
      (589, 2048] I 8.

    Evaluated only at Table 2's sizes (``sizes=TABLE2_SIZES``) the "none"
    rows and the type I width boundaries are exactly the paper's (64 and 512:
    the table was read off Table 2's grid). The type II boundary 323 B is not
    a grid point: it is where eq. 9 (``d = 64, k = 16, P = 512``) vanishes if
    ``b(S) = 0.01 + 7.0175e-5·S`` μs, i.e. with a per-byte cost
    ``1/β + γ`` about 30 % below the 1e-4 μs/B that reproduces Table 2, so
    the two tables are not consistent with one linear ``b(S)``;
    ``CostParams(gamma=7.0175e-5 - 1/16000)`` with ``header=0`` gives 323.

    Parameters
    ----------
    params : CostParams, optional
        Cost model parameters (default: :data:`SUNWAY`).
    degrees : sequence of int or None
        Switch degrees ``d`` of the type II trees; None = no type II tree available.
    sizes : iterable of int, optional
        Packet sizes in bytes (default every byte count 0..2048).
    P : int, optional
        Number of processes (default ``params.P``).
    header : float
        Bytes added to every packet in ``b(S)``.
    widths : sequence of int
        The type I widths to choose from.

    Returns
    -------
    list of dict
        ``d`` (None for "no type II"), ``range``, ``lo``, ``hi`` (bytes,
        ``lo`` = first size of the row), ``type`` ("I" or "II") and ``k``.

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). Eq. 7–11, Table 3.

    Examples
    --------
    >>> [(row["range"], row["type"], row["k"]) for row in selection_table(degrees=[None])]
    [('[0, 123]', 'I', 32), ('(123, 589]', 'I', 16), ('(589, 2048]', 'I', 8)]
    """
    p = _params(params)
    sizes = list(range(0, 2049) if sizes is None else sizes)
    rows: list[dict] = []
    for d in degrees:
        prev = None
        for size in sizes:
            kind, k = choose_tree_type(size, d, P, p, header, widths)
            last = rows[-1] if rows and rows[-1]["d"] == d else None
            if last is not None and (last["type"], last["k"]) == (kind, k):
                last["hi"] = int(size)
            else:
                rows.append({"d": d, "lo": int(size), "hi": int(size), "type": kind, "k": k, "after": prev})
            prev = int(size)
    for row in rows:
        after = row.pop("after")
        row["range"] = f"[{row['lo']}, {row['hi']}]" if after is None else f"({after}, {row['hi']}]"
    return rows

"""The fault-tolerant side of the TREFT runtime: the monitor thread (④ OPRS, ⑤ OPTR, ⑧ OPRFS, ⑨ OPET) and the
subworkers' exchange of copies and 2-of-3 vote on the check node (⑥), with rule 4's re-sends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator

import numpy as np

from vizcoll.treft.program import KernelCall
from vizcoll.treft.records import Msg, Vote, short
from vizcoll.treft.replica import Replica, RunState
from vizcoll.treft.sections import Section

__all__ = ["Checks", "vote_summary"]


def _digest(values: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(values).tobytes(), digest_size=16).hexdigest()


def _parts(size: int, m: int) -> list[slice]:
    bounds = np.linspace(0, size, m + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


class Checks(RunState):
    """The monitor thread of each section and the 2-of-3 votes of the subworkers."""

    # ------------------------------------------------------------ ⑥: exchange and 2-of-3 vote
    def _check_subtask(self, rep: Replica, kernel: KernelCall, part: int, s: int) -> Generator:
        sec = self.sections[s - 1]
        live = [v for v in kernel.outputs if v in sec.live]
        peers = self._peers(rep)
        if part == 0:
            self.rec.op(
                6,
                rep.r,
                f"r{rep.r}'s subworkers ask r{peers[0].r} and r{peers[1].r} (and r{rep.r}'s own "
                f"device) to send their copies of {short(live)} to r{rep.r}'s check node, where "
                "the RMK compares the three copies",
                section=s,
                kernel=kernel.name,
            )
        self._activity(rep, "subworker", kernel.name, f"{kernel.name}: gathering the copies of {short(live)}")
        yield self.net.message()
        senders = [(q, var) for q in [rep, *peers] for var in live]
        received = yield self.engine.all_of(
            self.engine.start(self._send_copy(q, rep, kernel, var, part)) for q, var in senders
        )
        copies = {(q.r, var): value for (q, var), value in zip(senders, received, strict=True)}
        self._activity(
            rep,
            "subworker",
            kernel.name,
            f"voting on {short(live)}",
            f"r{rep.r}'s RMK has the three copies of {short(live)} and compares them (hashes, 2-of-3 vote)"
            if part == 0
            else "",
            kind="vote" if part == 0 else "state",
        )
        nbytes = sum(self.program.sizes[v] for v in live) / kernel.subtasks
        yield self.engine.timeout(self.cost.compare_time(nbytes))
        votes = [self._vote(rep, sec, kernel, var, part, [copies[(q.r, var)] for q in peers]) for var in live]
        for vote in votes:
            if vote.outcome == "corrected":
                yield from self._repaired(rep, kernel, vote.var, part, sec)
        self._activity(rep, "subworker", kernel.name, None)
        rep.wq.put(Msg("checked", kernel.name, part, s, payload=votes))
        if part == 0:
            self.rec.emit("state", f"r{rep.r}: the subworkers put the results (OPTF) of {kernel.name} into wq")

    def _send_copy(self, src: Replica, dst: Replica, kernel: KernelCall, var: str, part: int) -> Generator:
        """``src``'s device sends its (current) part ``part`` of ``var`` to ``dst``'s check node."""
        piece = src.store[var].reshape(-1)[_parts(src.store[var].size, kernel.subtasks)[part]].copy()
        if part == 0 and src is not dst:
            self.rec.emit(
                "send",
                f"r{src.r} sends its copy of {var} ({self.program.sizes[var] / 1e6:.1f} MB in "
                f"{kernel.subtasks} parts) to r{dst.r}'s check node",
                src=src.r,
                dst=dst.r,
            )
        nbytes = self.program.sizes[var] / kernel.subtasks
        yield self.net.transfer(src.node(kernel.name), dst.check, nbytes)
        return piece

    def _vote(
        self, rep: Replica, sec: Section, kernel: KernelCall, var: str, part: int, others: list[np.ndarray]
    ) -> Vote:
        own_full = rep.store[var]
        where = _parts(own_full.size, kernel.subtasks)[part]
        own = own_full.reshape(-1)[where]
        h_own, h_a, h_b = _digest(own), _digest(others[0]), _digest(others[1])
        if h_own == h_a == h_b:
            outcome = "agree"
        elif h_a == h_b:
            fixed = np.array(own_full, copy=True)
            fixed.reshape(-1)[where] = others[0]
            rep.store[var] = fixed
            outcome = "corrected"
        elif h_own in (h_a, h_b):
            outcome = "majority"
        else:
            outcome = "no-majority"
        truth = np.array_equal(rep.store[var].reshape(-1)[where], self.golden[var].reshape(-1)[where])
        vote = Vote(rep.r, sec.index, kernel.name, var, part, outcome, bool(truth))
        self.votes.append(vote)
        return vote

    def _announce_votes(self, rep: Replica, votes: list[Vote], kernel: KernelCall) -> None:
        """One plain-language caption per variable whose copies did not all agree, and the data cell with it.

        The subworkers vote on all live variables of a section at about the same time, but the worker reports
        them kernel by kernel: a variable's vote changes the data cell only here, with its own caption, so the
        cell never says "corrected" while a wrong variable's vote is still to be told.
        """
        for var in dict.fromkeys(v.var for v in votes):
            mine = [v for v in votes if v.var == var]
            parts = f"{len(mine)} of {kernel.subtasks} parts" if len(mine) < kernel.subtasks else "all parts"
            outcomes = {v.outcome for v in mine if v.outcome != "agree"}
            self._refresh_truth(rep, [var])
            rep.corrected |= "corrected" in outcomes
            kind = "detect"  # a key moment of the replay: the vote found a copy that differs
            if "no-majority" in outcomes:
                rep.unrecoverable.add(var)
                label = (
                    f"r{rep.r}'s RMK finds the three copies of {var} all different: there is no majority, "
                    "the error cannot be corrected"
                )
            elif "corrected" in outcomes and all(v.truth for v in mine):
                still_wrong = self._still_wrong(rep)
                result = f"{var} corrected, {short(still_wrong)} still wrong" if still_wrong else "corrected"
                label = (
                    f"r{rep.r}'s copy of {var} differs from the two others, which agree: the 2-of-3 vote "
                    f"overwrites it ({parts} checked) with the majority value — {result}"
                )
            elif "corrected" in outcomes:
                label = (
                    f"r{rep.r}'s correct copy of {var} is outvoted by two identical wrong copies and "
                    "overwritten: the error wins the vote and is not detected"
                )
                kind = "note"
            elif "majority" in outcomes:
                label = f"r{rep.r}'s copy of {var} agrees with one other copy; the third replica must repair its own"
            else:
                continue
            self.rec.emit(kind, label, {rep.key("data"): self._data_state(rep)})

    def _repaired(self, rep: Replica, kernel: KernelCall, var: str, part: int, sec: Section) -> Generator:
        """A repaired part stays on the check node (later readers fetch it there); rule 4 re-sends early copies."""
        if rep.location.get(var) != rep.check:
            rep.location[var] = rep.check
            self.rec.emit(
                "state", f"r{rep.r}'s global information list now points to the repaired {var} on its check node"
            )
        where = _parts(rep.store[var].size, kernel.subtasks)[part]
        piece = rep.store[var].reshape(-1)[where].copy()
        targets = [
            (node, index)
            for node, index in sorted(rep.early.get(var, ()))
            if index > sec.last and (node, var) in rep.copies
        ]
        sends = []
        for node, index in targets:
            self.rec.emit(
                "send",
                f"rule 4: r{rep.r} re-sends the repaired part {part + 1} of {var} to "
                f"{self.program.statements[index].name}'s node, which got it early",
                src=rep.r,
                dst=rep.r,
            )
            sends.append(self.net.transfer(rep.check, node, self.program.sizes[var] / kernel.subtasks))
        yield self.engine.all_of(sends)
        for node, _index in targets:
            value = np.array(rep.copies[(node, var)], copy=True)
            value.reshape(-1)[where] = piece
            rep.copies[(node, var)] = value

    # ------------------------------------------------------------ fault-tolerant monitor thread
    def _await(self, rep: Replica, match: Callable[[Msg], bool]) -> Generator:
        """The next message of ``rep.fq`` that ``match``es (others wait in the backlog)."""
        for i, msg in enumerate(rep.backlog):
            if match(msg):
                return rep.backlog.pop(i)
        while True:
            msg = yield rep.fq.get()
            if match(msg):
                return msg
            rep.backlog.append(msg)

    def _monitor(self, rep: Replica, sec: Section) -> Generator:
        s, n = sec.index, len(sec.kernels)
        self._set(rep, "monitor", f"watching section {s}: 0/{n} kernels done")
        for done in range(1, n + 1):
            msg = yield from self._await(rep, lambda m: m.kind == "done" and m.section == s)
            self._set(
                rep,
                "monitor",
                f"watching section {s}: {done}/{n} kernels done",
                f"r{rep.r}'s monitor reads “{msg}” from fq: {done} of {n} kernels of section {s} done",
            )
        yield from self._handshake(rep, sec, "OPRS", 4)
        checked = [k for k in sec.kernels if any(v in sec.live for v in self.program.kernels[k].outputs)]
        for k in checked:
            rep.wq.put(Msg("OPTR", k, section=s))
            self.rec.op(
                5,
                rep.r,
                f"r{rep.r}'s monitor pushes OPTR (detect and correct) for {k} into the worker's queue wq",
                section=s,
                kernel=k,
            )
        self._set(rep, "monitor", f"waiting for OPTF: 0/{len(checked)} kernels checked")
        for done in range(1, len(checked) + 1):
            msg = yield from self._await(rep, lambda m: m.kind == "OPTF" and m.section == s)
            self._set(
                rep,
                "monitor",
                f"waiting for OPTF: {done}/{len(checked)} kernels checked",
                f"r{rep.r}'s monitor reads “{msg}”: {done} of {len(checked)} kernels checked",
            )
        yield from self._handshake(rep, sec, "OPRFS", 8)
        for k in sec.kernels:
            rep.wq.put(Msg("OPET", k, section=s))
        self.rec.op(
            9,
            rep.r,
            f"OPET: r{rep.r}'s monitor tells the kernels of section {s} ({short(sec.kernels)}) "
            "to end; their device nodes are freed",
            section=s,
            changes={rep.key("monitor"): f"ending section {s}"},
        )

    def _handshake(self, rep: Replica, sec: Section, kind: str, step: int) -> Generator:
        """Send ``kind`` to both other monitors and wait for both replies (answering theirs)."""
        s = sec.index
        peers = self._peers(rep)
        for q in peers:
            self._post(rep, q, Msg(kind, section=s, sender=rep.r))
        what = (
            f"it has reached the compare sync point of section {s} and waits for both replies (which also "
            "say where their live variables are)"
            if step == 4
            else f"it has finished checking section {s} and waits for both replies"
        )
        self.rec.op(
            step,
            rep.r,
            f"{kind}: r{rep.r}'s monitor tells r{peers[0].r} and r{peers[1].r} that {what}",
            section=s,
            kind="send",
            dst=peers[0].r,
            changes={rep.key("monitor"): f"{kind}: waiting for 2 replies"},
        )
        replies = answered = 0
        while replies < len(peers) or answered < len(peers):
            msg = yield from self._await(rep, lambda m: m.section == s and m.kind in (kind, kind + "-ack"))
            if msg.kind == kind:
                answered += 1
                self._post(rep, self.reps[msg.sender], Msg(kind + "-ack", section=s, sender=rep.r))
                self.rec.emit("send", f"r{rep.r}'s monitor answers r{msg.sender}'s {kind}", src=rep.r, dst=msg.sender)
            else:
                replies += 1
                self._set(
                    rep,
                    "monitor",
                    f"{kind}: {replies}/{len(peers)} replies",
                    f"r{rep.r}'s monitor gets r{msg.sender}'s reply to its {kind} ({replies}/{len(peers)})",
                )


def vote_summary(votes: list[Vote]) -> str:
    outcomes = {v.outcome for v in votes}
    if "no-majority" in outcomes:
        return "no majority"
    if "corrected" in outcomes:
        return "own copy repaired"
    if "majority" in outcomes:
        return "own copy agrees with the majority"
    return "all copies agree"

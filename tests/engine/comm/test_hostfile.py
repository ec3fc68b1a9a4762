"""MPI host lists (vizcoll.comm.hostfile): Open MPI, MPICH/Hydra, PBS and Slurm forms, limits and errors.

Every expected count below is a hand count or comes from a small independent
expansion written here (never from the parser under test).
"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vizcoll.comm.hostfile import MAX_HOSTFILE_BYTES, HostEntry, looks_like_hostfile, parse_hostfile
from vizcoll.errors import SpecError


def entries(text, ppn=1):
    """The parse as plain ``(host, slots, line)`` tuples."""
    return [(e.host, e.slots, e.line) for e in parse_hostfile(text, ppn=ppn)]


def error(text, ppn=1, source="hostfile"):
    """The message of the SpecError the parse raises."""
    with pytest.raises(SpecError) as caught:
        parse_hostfile(text, ppn=ppn, source=source)
    return str(caught.value)


# --- Open MPI hostfiles -------------------------------------------------------------------------------------------


def test_open_mpi_slots_max_slots_and_bare_hosts():
    text = "# cluster A\nnode01 slots=4\nnode02 slots=4 max_slots=8\n\nnode03\nnode04 max-slots=6 slots=2\n"
    assert entries(text) == [("node01", 4, 2), ("node02", 4, 3), ("node03", 1, 5), ("node04", 2, 6)]


def test_open_mpi_count_and_cpu_are_slot_counts():
    # PRRTE's hostfile_lex.l: "cpu" and "count" return the same kind of token as "slots"
    assert entries("a count=3\nb cpu=5\n") == [("a", 3, 1), ("b", 5, 2)]


def test_a_ceiling_without_a_count_gives_the_ceiling():
    # PRRTE's hostfile.c: got_max && !SLOTS_GIVEN -> node->slots = node->slots_max
    assert entries("node01 max_slots=8\nnode02 slots_max=3", ppn=2) == [("node01", 8, 1), ("node02", 3, 2)]


def test_open_mpi_keys_that_do_not_count_are_ignored():
    text = "node01 slots=2 username=alice port=2222\nnode02 slots=1 user_name=bob cores=8 sockets=2 boards=1\n"
    assert entries(text) == [("node01", 2, 1), ("node02", 1, 2)]


def test_blanks_around_equals_and_tabs():
    assert entries("node01 slots = 4\nnode02\tslots=2\n") == [("node01", 4, 1), ("node02", 2, 2)]


def test_keys_ignore_case():
    assert entries("node01 SLOTS=3 Max_Slots=4") == [("node01", 3, 1)]


def test_comments_after_the_host_may_hold_equals_signs():
    text = "node01 slots=2 # was slots=8, max_slots=16 before the upgrade\n# node02 slots=99\nnode03#no blank\n"
    assert entries(text) == [("node01", 2, 1), ("node03", 1, 3)]


# --- MPICH/Hydra machinefiles -------------------------------------------------------------------------------------


def test_hydra_counts_after_a_colon():
    # the Hydra wiki's example: donner:2, foo:3, shakey:2, with comments after the hosts
    text = "# This is a sample host file\ndonner:2     # first 2 procs\nfoo:3        # next 3\nshakey:2\n"
    assert entries(text) == [("donner", 2, 2), ("foo", 3, 3), ("shakey", 2, 4)]


def test_hydra_and_mpd_keys_are_ignored():
    text = "node01:4 binding=user:0,1,2,3\nnode02:2 user=alice\nnode03:8 ifhn=node03-ib\n"
    assert entries(text) == [("node01", 4, 1), ("node02", 2, 2), ("node03", 8, 3)]


# --- plain and PBS lists ------------------------------------------------------------------------------------------


def test_plain_list_one_host_per_line():
    assert entries("alpha\nbeta\ngamma\n") == [("alpha", 1, 1), ("beta", 1, 2), ("gamma", 1, 3)]


def test_pbs_nodefile_names_a_host_once_per_core():
    text = "n1\nn1\nn1\nn1\nn2\nn2\nn2\nn2\n"  # nodes=2:ppn=4
    assert entries(text) == [("n1", 4, 1), ("n2", 4, 5)]


def test_repeats_sum_wherever_they_are():
    text = "a:2\nb slots=3\na\nb:1\nc\na slots=5\n"
    # a: 2 + 1 (ppn) + 5 = 8; b: 3 + 1 = 4; c: 1
    assert entries(text) == [("a", 8, 1), ("b", 4, 2), ("c", 1, 5)]


def test_ppn_applies_only_to_hosts_without_a_count():
    text = "a\nb:2\nc slots=3\nd max_slots=5\ne,f:6\n"
    assert entries(text, ppn=4) == [("a", 4, 1), ("b", 2, 2), ("c", 3, 3), ("d", 5, 4), ("e", 4, 5), ("f", 6, 5)]


def test_comma_separated_hosts_with_and_without_counts():
    assert entries("node01,node02,node03") == [("node01", 1, 1), ("node02", 1, 1), ("node03", 1, 1)]
    assert entries("node01:2,node02:2\nnode03, node04") == [
        ("node01", 2, 1),
        ("node02", 2, 1),
        ("node03", 1, 2),
        ("node04", 1, 2),
    ]


def test_slots_on_a_line_of_several_hosts_apply_to_each():
    assert entries("a,b slots=3") == [("a", 3, 1), ("b", 3, 1)]


# --- Slurm hostlists ----------------------------------------------------------------------------------------------


def _expected(names, slots=1, line=1):
    return [(name, slots, line) for name in names]


def test_slurm_range():
    assert entries("node[01-16]") == _expected(f"node{i:02d}" for i in range(1, 17))


def test_slurm_ranges_and_single_numbers():
    names = [f"node{i:03d}" for i in range(1, 33)] + ["node040"]
    assert len(names) == 33  # 32 in the range, plus node040
    assert entries("node[001-032,040]") == _expected(names)


def test_slurm_two_bracket_groups():
    names = [f"rack{r}n{i:02d}" for r in (1, 2) for i in range(1, 17)]
    assert entries("rack[1-2]n[01-16]") == _expected(names)


def test_slurm_list_with_a_plain_host_and_counts():
    assert entries("gpu[03,04],login1") == [("gpu03", 1, 1), ("gpu04", 1, 1), ("login1", 1, 1)]
    assert entries("gpu[03-04]:4,login1") == [("gpu03", 4, 1), ("gpu04", 4, 1), ("login1", 1, 1)]
    assert entries("cn[1-3] slots=2", ppn=9) == _expected(["cn1", "cn2", "cn3"], slots=2)


def test_slurm_names_written_twice_count_twice():
    assert entries("n[1-2],n1") == [("n1", 2, 1), ("n2", 1, 1)]


# --- names --------------------------------------------------------------------------------------------------------


def test_fqdns_short_names_and_ipv4_are_kept_as_written():
    text = "node01.cluster.example.org slots=2\nnode01\n10.1.2.3:4\n10.1.2.4 slots=2\n10.1.2.3\n"
    assert entries(text) == [
        ("node01.cluster.example.org", 2, 1),
        ("node01", 1, 2),
        ("10.1.2.3", 5, 3),
        ("10.1.2.4", 2, 4),
    ]


def test_digits_are_never_normalised():
    assert entries("node01\nnode001\nnode1") == [("node01", 1, 1), ("node001", 1, 2), ("node1", 1, 3)]


def test_repeats_ignore_case_and_keep_the_first_spelling():
    assert entries("Node01:2\nNODE01\nnode01 slots=3") == [("Node01", 6, 1)]


def test_ipv6_bracketed_with_a_count_or_bare_in_the_open_mpi_form():
    text = "[fe80::1]:4\nfe80::2 slots=2\n::1\n[::1]:2"
    assert entries(text) == [("fe80::1", 4, 1), ("fe80::2", 2, 2), ("::1", 3, 3)]


def test_a_bare_ipv6_address_never_carries_a_count():
    assert entries("fe80::1:4") == [("fe80::1:4", 1, 1)]  # an address, not fe80::1 with 4 slots


def test_user_at_host_reads_as_the_host():
    assert entries("alice@node01 slots=2\nbob@node02:3") == [("node01", 2, 1), ("node02", 3, 2)]


# --- line endings -------------------------------------------------------------------------------------------------


def test_crlf_no_final_newline_and_byte_order_mark():
    assert entries("\ufeffa slots=2\r\nb\r\n\r\nc") == [("a", 2, 1), ("b", 1, 2), ("c", 1, 4)]


def test_bytes_are_read_as_utf8():
    assert entries(b"node01:2\nnode02\n") == [("node01", 2, 1), ("node02", 1, 2)]


def test_host_entry_is_frozen():
    entry = parse_hostfile("node01:2")[0]
    assert entry == HostEntry("node01", 2, 1)
    with pytest.raises(AttributeError):
        entry.slots = 3


# --- real shapes (our own small files, in the shapes public repositories write) -----------------------------------


def test_shape_fqdn_with_uniq_count():
    # A-Spangler/Parallelization, run_hello_world_mpi.sh: `srun hostname -f | sort | uniq -c`
    # printed as "$2:$1", i.e. one FQDN:count line per node
    text = "c101.hpc.example.edu:4\nc102.hpc.example.edu:4\nc117.hpc.example.edu:2\n"
    assert entries(text) == [
        ("c101.hpc.example.edu", 4, 1),
        ("c102.hpc.example.edu", 4, 2),
        ("c117.hpc.example.edu", 2, 3),
    ]


def test_shape_tab_separated_slots_local_host_first():
    # JohnCEarls/data-bin, mpi_get_procs.py: "%s\tslots=%i\n" per host, the local host first
    text = "head-node\tslots=16\nworker-1\tslots=8\nworker-2\tslots=8\n"
    assert entries(text) == [("head-node", 16, 1), ("worker-1", 8, 2), ("worker-2", 8, 3)]


def test_shape_sorted_host_count_line_per_task():
    # sdpb/Incompact3d-non-blocking, util/create_hostfile_dpu.sh: `srun -l hostname -s`, each task printed
    # as "host:$PPN" and sorted, so a node with two tasks is named on two consecutive lines
    text = "cpu-a1:32\ncpu-a1:32\ncpu-a2:32\ncpu-a2:32\n"
    assert entries(text) == [("cpu-a1", 64, 1), ("cpu-a2", 64, 3)]


def test_shape_pbs_nodefile_given_to_machinefile():
    # Fernal73/LearnDCPPP, HelloMPI/run.sh: `#PBS -l nodes=2:ppn=2` and `mpirun -machinefile $PBS_NODEFILE`;
    # cmhshirl/Hybrid_PleC, testPBS/pbstest.sh drops '^#' and '^$' lines of the nodefile before counting cores
    text = "compute-0-3.local\ncompute-0-3.local\ncompute-0-7.local\ncompute-0-7.local\n"
    assert entries(text) == [("compute-0-3.local", 2, 1), ("compute-0-7.local", 2, 3)]


# --- errors, each with its line -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a\nnode01 slots=0", "hostfile, line 2: slots=0 must be at least 1"),
        ("a\n\nnode01 slots=-2", "hostfile, line 3: slots=-2 must be at least 1"),
        ("node01 slots=four", "hostfile, line 1: slots=four is not a whole number of slots"),
        ("node01 slots=2.5", "hostfile, line 1: slots=2.5 is not a whole number of slots"),
        ("node01 slots=1000001", "hostfile, line 1: slots=1000001 is absurd (more than 1,000,000 slots)"),
        ("a\nnode01:0", "hostfile, line 2: the count in 'node01:0' must be at least 1"),
        ("node01:x", "hostfile, line 1: the count in 'node01:x' is not a whole number of slots"),
        ("node01:", "hostfile, line 1: the count in 'node01:' is not a whole number of slots"),
        ("[fe80::1]:0", "hostfile, line 1: the count in '[fe80::1]:0' must be at least 1"),
        ("node01 max_slots=x", "hostfile, line 1: max_slots=x is not a whole number of slots"),
    ],
)
def test_bad_slot_counts(text, message):
    assert error(text) == message


def test_unknown_key_is_named():
    assert error("a\nb\nnode01 slots=2 mem=4G").startswith("hostfile, line 3: unknown key 'mem'; ")


def test_count_given_twice():
    assert error("node01 slots=2 count=3") == "hostfile, line 1: the slot count is given twice (count=)"
    assert error("node01:2 slots=3") == "hostfile, line 1: 'node01:2' has a count and the line has slots=; give one"


def test_ceiling_below_the_count():
    message = "hostfile, line 1: the ceiling 2 (max_slots) is below the slot count 4"
    assert error("node01 slots=4 max_slots=2") == message


def test_bare_number_or_second_host_after_a_host():
    assert error("node01 4") == "hostfile, line 1: unexpected '4' after the host; write node01:4 or node01 slots=4"
    assert error("x\nnode01 node02").startswith("hostfile, line 2: unexpected 'node02' after the host")


def test_bad_hostlists():
    assert error("a\nn[5-3]") == "hostfile, line 2: bad hostlist 'n[5-3]': start > stop"
    assert error("n[a-c]") == "hostfile, line 1: bad hostlist 'n[a-c]': bad range"
    assert error("n[1-3") == "hostfile, line 1: 'n[1-3' has unbalanced or nested brackets"
    assert error("n[1-[2]]") == "hostfile, line 1: 'n[1-[2]]' has unbalanced or nested brackets"


def test_hostlists_are_counted_before_they_are_expanded():
    assert error("n[0-999999999]") == (
        "hostfile, line 1: 'n[0-999999999]' names 1,000,000,000 hosts, more than the limit of 200,000"
    )
    assert "astronomical" in error("n[1-" + "9" * 40 + "]")
    assert "astronomical" in error("n[1-" + "9" * 5000 + "]")  # beyond int()'s 4300-digit limit
    many = "n[" + ",".join(["0-99999"] * 1000) + "]"  # 1000 ranges of 100,000: never built
    assert "names 100,000,000 hosts" in error(many)


def test_process_and_host_limits():
    assert error("n\n" * 1_000_001) == "hostfile, line 1000001: more than 1,000,000 processes in all (the limit)"
    assert error("n[0-9]:100000\nm:1") == "hostfile, line 2: more than 1,000,000 processes in all (the limit)"
    distinct = "".join(f"n{i}\n" for i in range(200_001))
    assert error(distinct) == "hostfile, line 200001: more than 200,000 hosts (the limit)"


JSON_LIKE = "like JSON; a host list starts with a host"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"communicators": [["h0", "h1"]]}',
            f'hostfile, line 1: \'{{"communicators": [["h0", "h1"]]}}\' starts with \'{{\' {JSON_LIKE}',
        ),
        ("node01\n[[0, 1], [2, 3]]", f"hostfile, line 2: '[[0, 1], [2, 3]]' starts with '[' {JSON_LIKE}"),
        ('"node01"', f"hostfile, line 1: '\"node01\"' starts with '\"' {JSON_LIKE}"),
        ("node01\nnode$02 slots=1", "hostfile, line 2: 'node$02 slots=1' holds '$', which no host name has"),
        ("nœud01", "hostfile, line 1: 'nœud01' holds 'œ', which no host name has"),
        ("node01 // C++ comment", "hostfile, line 1: unexpected '//' after the host; join hosts with commas"),
        ("a" * 50 + "/b", "hostfile, line 1: '" + "a" * 40 + "...' holds '/', which no host name has"),
        ("^node03", "hostfile, line 1: '^node03' excludes a host (Open MPI's ^); list only the hosts to use"),
        (
            "-node",
            "hostfile, line 1: '-node' is not a host name (letters, digits, '-', '_' and '.', "
            "starting with a letter or a digit)",
        ),
        ("node01:2:3", "hostfile, line 1: 'node01:2:3' is neither host:count nor an IPv6 address ([address]:count)"),
        ("[fe80::zz]:4", f"hostfile, line 1: '[fe80::zz]:4' starts with '[' {JSON_LIKE}"),
        ("a,[fe80::zz]:4", "hostfile, line 1: '[fe80::zz]:4' is not a bracketed IPv6 address like [fe80::1]:4"),
        ("a" * 254, "hostfile, line 1: '" + "a" * 40 + "...' is longer than a host name can be (253)"),
    ],
)
def test_lines_no_host_list_has(text, message):
    assert error(text) == message


def test_empty_and_comment_only_text():
    assert error("") == "hostfile: no host in it (the text is empty or holds only comments)"
    assert error("# nothing yet\n\n   \n", source="hosts.txt") == (
        "hosts.txt: no host in it (the text is empty or holds only comments)"
    )


def test_too_many_bytes():
    message = f"big: the text is larger than the limit of {MAX_HOSTFILE_BYTES:,} bytes"
    assert error("a" * (MAX_HOSTFILE_BYTES + 1), source="big") == message
    assert error("é" * (MAX_HOSTFILE_BYTES // 2 + 1), source="big") == message  # 2 bytes each in UTF-8
    assert error(b"a" * (MAX_HOSTFILE_BYTES + 1), source="big") == message


def test_not_utf8_and_not_text():
    assert error(b"node01\n\xff\n") == "hostfile: not UTF-8 text"
    assert error(None) == "hostfile: expected text, got NoneType"


@pytest.mark.parametrize("ppn", [0, -1, 2.5, "4", None, 1_000_001])
def test_bad_ppn(ppn):
    assert error("node01", ppn=ppn) == f"ppn must be a whole number from 1 to 1,000,000, got {ppn!r}"


# --- looks_like_hostfile ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "node01 slots=4\n",
        "node01:4",
        "node[01-16]",
        "10.1.2.3:4",
        "[fe80::1]:4\n",
        "::1 slots=2",
        "# hosts\nnode01",
        "\n\n  node01",
        "\ufeffnode01",
        b"node01:2\n",
        "node01\n{broken",
    ],
)
def test_looks_like_hostfile(text):
    assert looks_like_hostfile(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"communicators": [["h0", "h1"]]}',
        "[[0, 1], [2, 3]]",
        '  \n [\n  ["h0"]\n]',
        "[1]",
        '"h0"',
        "",
        " \n\t",
        b'{"communicators": []}',
        "[]",
        None,
    ],
)
def test_does_not_look_like_hostfile(text):
    assert not looks_like_hostfile(text)


# --- whatever the input: a list of hosts or a SpecError ------------------------------------------------------------

PIECES = [
    "node",
    "n",
    "01",
    "7",
    "[",
    "]",
    "-",
    ",",
    ":",
    "=",
    " ",
    "\t",
    "\n",
    "\r\n",
    "#",
    "@",
    "slots",
    "max_slots",
    "count",
    "cpu",
    "ifhn",
    "binding",
    "user",
    "0",
    "-1",
    "1000001",
    "[fe80::1]",
    "fe80::1",
    "::",
    "10.1.2.3",
    ".",
    "_",
    "^",
    "{",
    '"',
    "[01-16]",
    "[1-2,5]",
    "[9-0]",
    "\ufeff",
    "é",
    "\x00",
    "+n0",
    "9" * 30,
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(alphabet=string.printable), st.text(), st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
    ),
    st.integers(min_value=1, max_value=64),
)
def test_any_text_gives_hosts_or_a_spec_error(text, ppn):
    looks_like_hostfile(text)
    try:
        hosts = parse_hostfile(text, ppn=ppn)
    except SpecError:
        return
    assert hosts and all(isinstance(e, HostEntry) and e.slots >= 1 and e.line >= 1 for e in hosts)
    assert len({e.host.lower() for e in hosts}) == len(hosts)
    assert [e.line for e in hosts] == sorted(e.line for e in hosts)

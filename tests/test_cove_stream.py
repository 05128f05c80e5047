"""``cove play --out`` streams its tables chunk by chunk (memory flat in ``-n``, issue 16).

:func:`simulator.cove.api.play_to` appends each chunk's rows to the files as the chunk finishes
and keeps only a tally for the summary. These tests pin that the files and the summary are the
ones the whole-table path writes (:func:`play` + :func:`simulator.output.write_table`), byte for
byte and value for value, at any chunk size; that a failed run leaves no file; and that the
runner hands chunks over in order, loaded checkpoint chunks included.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from simulator.cove.api import TABLE_KEYS, play, play_to
from simulator.output import TableKeyError, TableStream, write_table
from simulator.runner import run_chunks

MIX = "plunderer-v1,brawler-v1,tavern-v1,random"


def _whole(tmp: Path, **kw) -> dict:
    res = play(None, MIX, cards=True, **kw)
    write_table(res.seats, tmp, "seats", key=TABLE_KEYS["seats"])
    for name in ("battles", "cards"):
        write_table(res.tables[name], tmp, name, key=TABLE_KEYS[name])
    return res.summary


def _same_summary(a: dict, b: dict) -> None:
    a, b = dict(a), dict(b)
    a.pop("wall_time_s")
    b.pop("wall_time_s")
    assert a == b


@pytest.mark.parametrize("chunk_size", [1, 3, 50])
def test_streamed_files_and_summary_are_the_whole_tables(tmp_path, chunk_size):
    """Every file byte for byte (CSV) and frame for frame (Parquet), and the summary value for
    value, against the whole-table path, at chunks of 1, 3 and 50 deals (one chunk): catches a
    header written twice, a row lost or repeated between chunks, a Parquet schema that changes
    with the chunk and a tally that depends on the chunking."""
    kw = {"n": 18, "players": 4, "seed": 77, "rotate_seats": True}
    ref = _whole(tmp_path / "whole", **kw)
    got = play_to(tmp_path / "stream", None, MIX, chunk_size=chunk_size, **kw)
    _same_summary(got, ref)
    for name in TABLE_KEYS:
        a = (tmp_path / "stream" / f"{name}.csv").read_bytes()
        b = (tmp_path / "whole" / f"{name}.csv").read_bytes()
        assert a == b, name
        pa = pd.read_parquet(tmp_path / "stream" / f"{name}.parquet")
        pb = pd.read_parquet(tmp_path / "whole" / f"{name}.parquet")
        pd.testing.assert_frame_equal(pa, pb)
    assert sorted(p.name for p in (tmp_path / "stream").iterdir()) == sorted(
        f"{n}.{s}" for n in TABLE_KEYS for s in ("csv", "parquet")
    )


def test_without_out_the_summary_is_play_s(tmp_path):
    """No folder: only the summary, equal to play()'s (the tally is exact at any chunk size:
    scores are summed as fractions, fame as integers)."""
    kw = {"n": 12, "players": 3, "seed": 5}
    a = play_to(None, None, "brawler-v1,tavern-v1,random", chunk_size=2, **kw)
    b = play(None, "brawler-v1,tavern-v1,random", **kw).summary
    _same_summary(a, b)


def test_a_failed_run_leaves_no_file(tmp_path, monkeypatch):
    """A run that fails after some chunks were written leaves neither the tables nor the
    folder it made."""
    import simulator.cove.api as api

    real = api.to_cards
    calls = {"n": 0}

    def failing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("disk on fire")
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "to_cards", failing)
    out = tmp_path / "run"
    with pytest.raises(RuntimeError, match="disk on fire"):
        play_to(out, None, MIX, n=8, players=4, seed=1, chunk_size=2)
    assert calls["n"] == 3
    assert not out.exists()


def test_table_stream_refuses_a_key_that_may_repeat_across_chunks(tmp_path):
    """The cross-chunk key check: the first key column must increase from chunk to chunk."""
    s = TableStream(tmp_path, "t", key=("game", "seat"))
    s.write(pd.DataFrame({"game": [0, 0, 1], "seat": [1, 2, 1]}))
    with pytest.raises(TableKeyError, match="repeat across chunks"):
        s.write(pd.DataFrame({"game": [1, 2], "seat": [2, 1]}))
    with pytest.raises(TableKeyError, match="not unique"):
        s.write(pd.DataFrame({"game": [3, 3], "seat": [1, 1]}))
    s.abort()
    assert list(tmp_path.iterdir()) == []


def _sizes(chunk):
    return [chunk.index] * chunk.size


def test_run_chunks_consume_gets_chunks_in_order(tmp_path):
    """consume sees every chunk once, in chunk order, with two workers (results may finish in
    any order) and its return value replaces the result."""
    seen = []

    def consume(index, res, entropy):
        seen.append((index, len(res), entropy))
        return index * 10

    run = run_chunks(_sizes, 23, seed=3, chunk_size=4, n_jobs=2, quiet=True, consume=consume)
    assert [s[0] for s in seen] == list(range(6))
    assert [s[1] for s in seen] == [4, 4, 4, 4, 4, 3]
    assert {s[2] for s in seen} == {3}
    assert run.results == [0, 10, 20, 30, 40, 50]


def test_table_stream_with_empty_chunks_writes_what_write_table_writes(tmp_path):
    """Empty chunks first, between and last (a chunk of games without a non-player battle),
    and a table with no row at all: the same CSV bytes and Parquet frame as write_table of the
    whole table (the header once; an all-empty table is its header and a row-less Parquet)."""
    cols = {"game": pd.Series([], dtype="int64"), "who": pd.Series([], dtype="object")}
    empty = pd.DataFrame(cols)
    full = [
        pd.DataFrame({"game": [1, 1, 2], "who": ["a", "b", "a"]}),
        pd.DataFrame({"game": [5], "who": ["c"]}),
    ]
    for name, chunks in (("some", [empty, full[0], empty, full[1], empty]), ("none", [empty])):
        s = TableStream(tmp_path / "stream", name, key=("game", "who"))
        for c in chunks:
            s.write(c)
        s.close()
        whole = pd.concat(chunks, ignore_index=True)
        write_table(whole, tmp_path / "whole", name, key=("game", "who"))
        a = (tmp_path / "stream" / f"{name}.csv").read_bytes()
        assert a == (tmp_path / "whole" / f"{name}.csv").read_bytes()
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "stream" / f"{name}.parquet"),
            pd.read_parquet(tmp_path / "whole" / f"{name}.parquet"),
        )


def test_table_stream_writes_parquet_in_row_groups_of_many_chunks(tmp_path):
    """Small chunks are held until ``row_group_bytes`` of Arrow data wait, then written as one
    row group (a Parquet writer keeps each group's metadata until it closes: a group per chunk
    made a long run's memory grow with -n). 25 chunks of 7 rows of two int64 columns (112
    bytes) with groups of at least 640 bytes: four groups of 42 rows and the last 7 at close;
    the same rows, in order, as the whole table; and a stream aborted with rows held leaves
    nothing."""
    import pyarrow.parquet as pq

    chunks = [
        pd.DataFrame({"game": [10 * c + k for k in range(7)], "x": [c * k for k in range(7)]})
        for c in range(25)
    ]
    s = TableStream(tmp_path / "stream", "t", key=("game",), row_group_bytes=640)
    for c in chunks:
        s.write(c)
    s.close()
    meta = pq.ParquetFile(tmp_path / "stream" / "t.parquet").metadata
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert sizes == [42, 42, 42, 42, 7]
    whole = pd.concat(chunks, ignore_index=True)
    write_table(whole, tmp_path / "whole", "t", key=("game",))
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "stream" / "t.parquet"),
        pd.read_parquet(tmp_path / "whole" / "t.parquet"),
    )
    assert TableStream.ROW_GROUP_BYTES >= 1 << 20  # the default: a run's groups are large
    held = TableStream(tmp_path / "aborted", "t", key=("game",), row_group_bytes=10_000)
    held.write(chunks[0])
    held.abort()
    assert not (tmp_path / "aborted").exists()
    with pytest.raises(ValueError, match="row_group_bytes must be >= 1"):
        TableStream(tmp_path / "bad", "t", key=("game",), row_group_bytes=0)

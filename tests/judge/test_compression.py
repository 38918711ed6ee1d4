"""The check's note on what each side's producer made of its payload (judge/compression.py)."""

from kcliff.judge.compression import compression_notes
from kcliff.results.model import Entry, ResultsDoc, Run


def _side(side: str, codec: str, ratios: list[float | None]) -> Entry:
    runs = [Run(records=1000, mb_per_sec=10.0, compression_ratio=r) for r in ratios]
    return Entry(id=side, description=side, applied={"producer": {"compression.type": codec},
                                                     "payload": {"kind": "json-events"}}, runs=runs)


def _doc(*entries: Entry) -> ResultsDoc:
    return ResultsDoc(run_id="r", environment={}, scenarios=list(entries))


def test_a_head_that_compresses_harder_is_said_to_send_fewer_bytes():
    [note] = compression_notes(_doc(_side("base", "lz4", [2.1, 2.0, 2.2]), _side("head", "zstd", [3.1, 3.2, None])))
    # per record the base sends 1/2.1 of its bytes, the head 1/3.15: 33% fewer
    assert note == ("compression on json-events: base 2.10x (lz4), head 3.15x (zstd): the head sends 33% fewer "
                    "bytes for the same records")


def test_the_same_codec_says_no_saving_and_no_ratio_says_nothing():
    [note] = compression_notes(_doc(_side("base", "zstd", [3.10]), _side("head", "zstd", [3.12])))
    assert "fewer" not in note and "more" not in note
    assert compression_notes(_doc(_side("base", "none", [None]), _side("head", "none", [None]))) == []
    assert compression_notes(_doc(_side("base", "zstd", [3.0]))) == []


def test_a_librdkafka_producers_codec_is_read_under_librdkafkas_name():
    base, head = _side("base", "none", [0.99]), _side("head", "none", [3.86])
    for side, codec in ((base, "none"), (head, "zstd")):
        side.applied["producer"] = {"compression.codec": codec}  # as a librdkafka file writes it
    [note] = compression_notes(_doc(base, head))
    assert "base 0.99x (none), head 3.86x (zstd)" in note

"""kcliff's built-in json-events payload: the same bytes everywhere, valid JSON, sizes spread around
their median the way service events are (docs/measurements.md, "Payloads")."""

import hashlib
import json
import statistics
from collections import Counter

from kcliff.scenario import json_events


def test_the_same_arguments_make_the_same_bytes_on_any_machine():
    first = json_events.generate(700, records=300)
    assert first == json_events.generate(700, records=300)
    # pinned: a change here changes every json-events run's settings hash, so it must be deliberate
    assert hashlib.sha256(b"\n".join(first)).hexdigest()[:16] == PINNED
    assert json_events.generate(900, records=300) != first  # another median is another stream


PINNED = "555f16b399449e17"  # json_events.generate(700, records=300), as first made


def test_every_event_is_one_compact_json_object_of_a_known_type_on_one_line():
    events = json_events.generate(700, records=2000)
    kinds = Counter()
    for raw in events:
        assert b"\n" not in raw
        doc = json.loads(raw)
        assert raw == json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
        assert set(doc) == {"event_id", "event_type", "schema_version", "occurred_at", "producer", "trace_id", "data"}
        kinds[doc["event_type"]] += 1
    assert set(kinds) == {k[0] for k in json_events._KINDS}
    assert kinds.most_common(1)[0][0] == "page.viewed"


def test_sizes_spread_around_the_median_within_the_clip():
    for median, records in ((700, 3000), (4096, 600)):
        sizes = [len(e) for e in json_events.generate(median, records=records)]
        assert abs(statistics.median(sizes) - median) < 0.06 * median
        assert max(sizes) <= json_events.MAX_SHARE * median
        assert min(sizes) >= min(json_events.MIN_SHARE * median, 400)  # or the smallest skeleton
        assert statistics.pstdev(sizes) > 0.3 * median  # a spread, not one size


def test_events_are_filled_to_their_drawn_size_exactly_when_above_their_skeleton():
    import random
    rng = random.Random(1)
    for size in (600, 1000, 2500, 9000):
        assert len(json_events.event(rng, 0, size)) == size


def test_large_medians_hold_fewer_records_so_the_file_stays_small():
    assert json_events.count(700) == json_events.RECORDS
    assert json_events.count(65_536) * 65_536 * 2 <= json_events.MAX_FILE_BYTES

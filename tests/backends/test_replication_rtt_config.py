"""The replication round trip (cross-zone) without a cluster: the delays toxiproxy is given, the
brokers' replication listener and its advertised proxy address, and the option and profile values
refused with what would be valid."""

from kcliff.backends.latency import one_way_ms


def test_the_two_one_way_delays_add_up_to_the_round_trip_in_whole_ms():
    assert one_way_ms(20) == (10, 10)
    assert one_way_ms(1) == (1, 0) and one_way_ms(5) == (3, 2)  # rounding each half alone gave 0 and 4
    assert one_way_ms(0) == (0, 0)
    assert all(sum(one_way_ms(ms)) == ms for ms in range(0, 1001))

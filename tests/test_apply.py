from kcliff.apply import steps


def test_thread_pools_move_by_half_or_double_per_step():
    assert steps(8, 1) == [4, 2, 1]
    assert steps(1, 8) == [2, 4, 8]
    assert steps(3, 8) == [6, 8]
    assert steps(8, 3) == [4, 3]
    assert steps(5, 5) == []


def test_every_step_is_within_kafkas_bounds():
    for start in range(1, 40):
        for target in range(1, 40):
            previous = start
            for value in steps(start, target):
                assert previous / 2 <= value <= previous * 2, (start, target, previous, value)
                previous = value
            assert previous == target


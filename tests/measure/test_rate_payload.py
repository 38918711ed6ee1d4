"""The load generator with a payload (issue #29): its argv names the payload file in place of the
record size, each value one argv element, and the file is among those the backend must let it read."""

from pathlib import Path

from kcliff.backends.base import Cluster
from kcliff.measure import at_rate
from kcliff.scenario.payload import PayloadKind
from kcliff.scenario.payload_files import PreparedPayload


class Argv(Cluster):
    backend = "stand-in"
    admin_bootstrap = tool_bootstrap = "127.0.0.1:9092"

    def __init__(self) -> None:
        self.files: tuple[Path, ...] = ()

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (),
                     jars: tuple[Path, ...] = ()) -> list[str]:
        self.files = files
        return [main_class, *args]

    def down(self) -> None:
        pass


def test_a_payload_file_takes_the_place_of_the_record_size_and_is_mounted(tmp_path, monkeypatch):
    monkeypatch.setattr(at_rate.loadgen, "ensure", lambda: ())
    records = tmp_path / "a b; $(reboot).b64"
    payload = PreparedPayload(PayloadKind.SAMPLES, "0" * 64, 2, True, 3, 4.0, 4.0, 5, tmp_path / "v", "\n", records)
    cluster = Argv()
    props = tmp_path / "p.properties"
    argv = at_rate.rate_argv(cluster, "t", 500, 4, 1, props, payload=payload)
    assert "--record-size" not in argv and argv[argv.index("--payload-file") + 1] == str(records)
    assert cluster.files == (props, records)
    plain = at_rate.rate_argv(cluster, "t", 500, 4, 1, props, record_size=200)
    assert plain[plain.index("--record-size") + 1] == "200" and "--payload-file" not in plain
    assert cluster.files == (props,)

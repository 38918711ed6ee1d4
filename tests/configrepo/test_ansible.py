"""cp-ansible inventories, group_vars and host_vars as a config repo: kafka_broker_custom_properties as
the brokers' settings on their own line, weighed with Ansible's variable precedence (host over group
over all, the inventory file below group_vars/, a dictionary replaced whole unless hash_behaviour =
merge), confluent_package_version as the Kafka release, templated and vault values noted, what
cp-ansible or Kafka would refuse reported on its line, all at once; discovery by place and content,
with no false positive on other Ansible files; lint annotations on the right line of the example."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import ansible
from kcliff.errors import InputError
from repo_files import line_of, write

EXAMPLE = ROOT / "examples" / "ansible-repo"

HOSTS = """\
---
# prod: three brokers, three controllers
all:
  vars:
    ansible_user: deploy
    confluent_package_version: "7.6.0"
kafka_controller:
  vars:
    kafka_controller_custom_properties:
      controller.quorum.election.timeout.ms: 2000
  hosts:
    ctl-[1:3].example.com:
kafka_broker:
  vars:
    kafka_broker_custom_properties:
      num.partitions: 3
  hosts:
    kafka-1.example.com:
    kafka-2.example.com:
    kafka-3.example.com:
"""

BROKERS = """\
---
# every broker's server.properties
kafka_broker_custom_properties:
  num.io.threads: 16
  num.network.threads: 8
  log.retention.hours: 168
  auto.create.topics.enable: false
  log.dirs: "{{ data_dirs | join(',') }}"
  ldap.java.naming.security.credentials: !vault |
    $ANSIBLE_VAULT;1.1;AES256
    6162636465
  ssl.endpoint.identification.algorithm: !unsafe ''
kafka_broker_default_internal_replication_factor: 2
"""


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        write(tmp_path, name, text)
    return tmp_path


def _load(root: Path) -> configrepo.ConfigRepo:
    return configrepo.load([str(root)])


def _entries(repo: configrepo.ConfigRepo) -> dict[tuple[str, str], tuple[object, int | None]]:
    """(file name, key) -> (value, line) of the broker entries."""
    return {(Path(e.path).name, e.name): (e.value, e.line) for e in repo.in_scope("broker")}


def _notes(repo: configrepo.ConfigRepo, path: Path) -> dict[int | None, str]:
    return {n.line: n.message for n in repo.notes if Path(n.path).resolve() == path.resolve()}


def test_group_vars_are_read_each_key_on_its_line_at_the_release_of_the_package_version(tmp_path):
    root = _repo(tmp_path, {"hosts.yml": HOSTS, "group_vars/kafka_broker.yml": BROKERS})
    repo = _load(root)
    brokers = root / "group_vars/kafka_broker.yml"
    found = _entries(repo)
    assert found["kafka_broker.yml", "num.io.threads"] == (16, line_of(brokers, "num.io.threads"))
    # cp-ansible's template writes YAML false as Jinja's "False", which Kafka reads case-insensitively
    assert found["kafka_broker.yml", "auto.create.topics.enable"][0] is False
    assert found["kafka_broker.yml", "ssl.endpoint.identification.algorithm"][0] == ""  # !unsafe: the text itself
    # the replication factor variable as the internal topics' settings, on its line
    rf_line = line_of(brokers, "kafka_broker_default_internal_replication_factor")
    assert found["kafka_broker.yml", "offsets.topic.replication.factor"] == (2, rf_line)
    assert found["kafka_broker.yml", "transaction.state.log.min.isr"] == (2, rf_line)
    assert repo.kafka_version is not None and repo.kafka_version.version == "3.6.2"
    notes = _notes(repo, brokers)
    assert "Jinja expression" in notes[line_of(brokers, "log.dirs")]
    assert "vault-encrypted" in notes[line_of(brokers, "ldap.java.naming.security.credentials")]
    # the inventory's own group vars rank below group_vars/kafka_broker.yml: replaced whole there
    hosts = root / "hosts.yml"
    assert "num.partitions overridden on every broker" in _notes(repo, hosts)[line_of(hosts, "kafka_broker_custom_properties")]
    assert "KRaft controllers" in _notes(repo, hosts)[line_of(hosts, "kafka_controller_custom_properties")]
    assert ("hosts.yml", "num.partitions") not in found


def test_a_host_dictionary_replaces_the_groups_whole_and_kcliff_warns_what_it_drops(tmp_path):
    root = _repo(tmp_path, {"hosts.yml": HOSTS, "group_vars/kafka_broker.yml": BROKERS,
                            "host_vars/kafka-1.example.com.yml": "kafka_broker_custom_properties:\n"
                                                                 "  broker.rack: eu-1a\n  num.io.threads: 8\n"})
    repo = _load(root)
    host = root / "host_vars/kafka-1.example.com.yml"
    warning = next(n for n in repo.notes if Path(n.path) == host and n.level == "warning")
    assert warning.line == 1 and "replaces kafka_broker_custom_properties of group kafka_broker" in warning.message
    assert "num.network.threads" in warning.message and "hash_behaviour = merge" in warning.message
    # the other brokers still get the group's value: the cluster runs two, which kcliff says
    brokers = root / "group_vars/kafka_broker.yml"
    differs = _notes(repo, brokers)[line_of(brokers, "num.io.threads")]
    assert "16 on kafka-2.example.com, kafka-3.example.com but 8 on kafka-1.example.com" in differs
    with pytest.raises(InputError, match="broker files must agree"):
        configrepo.to_scenario(repo)


def test_with_hash_behaviour_merge_a_hosts_keys_add_to_the_groups(tmp_path):
    root = _repo(tmp_path, {"ansible.cfg": "[defaults]\nforks = 10\nhash_behaviour = merge\n", "hosts.yml": HOSTS,
                            "group_vars/kafka_broker.yml": BROKERS,
                            "host_vars/kafka-1.example.com.yml": "kafka_broker_custom_properties:\n  broker.rack: a\n",
                            "group_vars/all.yml": "kafka_broker_custom_properties:\n  num.replica.fetchers: 4\n"})
    repo = _load(root)
    assert not [n for n in repo.notes if n.level == "warning"]
    found = _entries(repo)
    assert found["kafka-1.example.com.yml", "broker.rack"][0] == "a"
    assert found["all.yml", "num.replica.fetchers"][0] == 4  # merged under the group's keys, so read
    assert "hash_behaviour = merge" in _notes(repo, root / "ansible.cfg")[3]
    assert configrepo.to_scenario(repo).broker["num.io.threads"] == 16


def test_group_vars_all_outranks_the_inventory_files_group_vars_and_children_outrank_parents(tmp_path):
    hosts = HOSTS.replace("kafka_broker:\n  vars:", "racks:\n  children:\n    rack_a:\n      hosts:\n"
                                                   "        kafka-1.example.com:\nkafka_broker:\n  vars:")
    root = _repo(tmp_path, {"hosts.yml": hosts,
                            "group_vars/all.yml": "kafka_broker_custom_properties:\n  num.io.threads: 4\n",
                            "group_vars/rack_a.yml": "kafka_broker_custom_properties:\n  num.io.threads: 6\n"})
    repo = _load(root)
    found = _entries(repo)
    assert found["all.yml", "num.io.threads"][0] == 4  # group_vars/all beats the inventory's kafka_broker vars
    assert found["rack_a.yml", "num.io.threads"][0] == 6  # rack_a (depth 2) beats all on kafka-1
    assert ("hosts.yml", "num.partitions") not in found


def test_what_cp_ansible_or_kafka_would_refuse_is_bad_input_on_its_line_all_at_once(tmp_path):
    root = _repo(tmp_path, {
        "hosts.yml": HOSTS.replace('"7.6.0"', "7.6"),
        "group_vars/kafka_broker.yml": "kafka_broker_custom_properties:\n  num.io.thread: 16\n"
                                       "  num.network.threads: many\n",
        "host_vars/kafka-3.example.com.yml": "kafka_broker_custom_properties:\n  log.dirs: [/data1, /data2]\n",
        "host_vars/kafka-2.example.com.yml": "kafka_broker_custom_properties:\n",
    })
    with pytest.raises(InputError) as caught:
        _load(root)
    found = {(Path(p.path or "").name, p.line): p.message for p in caught.value.problems}
    assert "must be a string such as" in found["hosts.yml", 6]
    assert "did you mean 'num.io.threads'" in found["kafka_broker.yml", 2]
    assert "num.network.threads" in found["kafka_broker.yml", 3]
    assert "YAML list" in found["kafka-3.example.com.yml", 2]
    assert "must be a mapping of Kafka keys" in found["kafka-2.example.com.yml", 1]


def test_a_package_version_that_is_no_release_is_refused_one_kcliff_cannot_map_is_noted(tmp_path):
    root = _repo(tmp_path, {"hosts.yml": HOSTS.replace('"7.6.0"', '"7.6"')})
    with pytest.raises(InputError, match="not a Confluent Platform release such as 7.6.0"):
        _load(root)
    write(root, "hosts.yml", HOSTS.replace('"7.6.0"', '"6.2.4"') + "    kafka-4.example.com:\n")
    repo = _load(root)
    assert repo.kafka_version is None and any("7.x and 8.x only" in n.message for n in repo.notes)


def test_without_an_inventory_every_broker_is_assumed_in_all_and_kafka_broker(tmp_path):
    root = _repo(tmp_path, {
        "group_vars/all": "confluent_package_version: 8.0.1\nkafka_broker_custom_properties:\n  num.partitions: 6\n",
        "group_vars/kafka_broker/main.yml": "kafka_broker_custom_properties:\n  num.io.threads: 9\n",
        "group_vars/kafka_broker.yml": "kafka_broker_custom_properties:\n  num.io.threads: 1\n",
        "host_vars/broker-7.yml": "confluent_server_enabled: false\n",
    })
    repo = _load(root)
    found = _entries(repo)
    assert found["main.yml", "num.io.threads"][0] == 9  # group_vars/kafka_broker/ is read, .yml beside it is not
    assert ("kafka_broker.yml", "num.io.threads") not in found and ("all", "num.partitions") not in found
    assert any("no inventory listing the kafka_broker group's hosts" in n.message for n in repo.notes)
    assert "first that exists" in _notes(repo, root / "group_vars/kafka_broker.yml")[None]
    assert "confluent-kafka (Confluent Community)" in _notes(repo, root / "host_vars/broker-7.yml")[1]
    assert repo.kafka_version is not None and repo.kafka_version.version.startswith("4.0.")


def test_an_ini_inventory_gives_the_hosts_its_variables_are_noted_not_read(tmp_path):
    root = _repo(tmp_path, {
        "hosts": "[kafka_broker]\nkafka-[1:3].example.com\n\n[kafka_broker:vars]\n"
                 "kafka_broker_custom_properties={\"num.io.threads\": 4}\n",
        "host_vars/kafka-2.example.com.yml": "kafka_broker_custom_properties:\n  num.io.threads: 2\n",
        "host_vars/zookeeper-1.example.com.yml": "kafka_broker_custom_properties:\n  num.io.threads: 3\n",
    })
    repo = _load(root)
    assert _entries(repo)["kafka-2.example.com.yml", "num.io.threads"][0] == 2
    assert "INI inventory" in _notes(repo, root / "hosts")[5]
    assert "reaches no kafka_broker host" in _notes(repo, root / "host_vars/zookeeper-1.example.com.yml")[1]


def test_each_environment_is_its_own_inventory(tmp_path):
    env = "kafka_broker:\n  hosts:\n    {}-kafka-1:\n"
    root = _repo(tmp_path, {
        "group_vars/all.yml": "confluent_package_version: '7.9.1'\n",
        "inventories/prod/hosts.yml": env.format("prod"),
        "inventories/prod/group_vars/kafka_broker.yml": "kafka_broker_custom_properties:\n  num.io.threads: 16\n",
        "inventories/staging/hosts.yml": env.format("staging"),
        "inventories/staging/group_vars/kafka_broker.yml": "kafka_broker_custom_properties:\n  num.io.threads: 4\n",
    })
    repo = configrepo.load([str(root / "inventories/prod"), str(root / "group_vars")])
    assert {k: v[0] for k, v in _entries(repo).items()} == {("kafka_broker.yml", "num.io.threads"): 16}
    assert repo.kafka_version is not None and repo.kafka_version.version.startswith("3.9.")


@pytest.mark.parametrize("name, text", [
    ("site.yml", "- hosts: kafka_broker\n  vars:\n    kafka_broker_custom_properties:\n      num.io.threads: 1\n"),
    ("roles/kafka/defaults/main.yml", "kafka_broker_custom_properties: {}\nconfluent_package_version: 7.6.0\n"),
    ("group_vars/web.yml", "nginx_worker_processes: 4\nkafka_bootstrap_servers: kafka:9092\n"),
    ("group_vars/README.md", "kafka_broker_custom_properties:\n  num.io.threads: 1\n"),
    ("values.yaml", "kafka_broker_custom_properties:\n  num.io.threads: 1\nhosts: all\n"),
])
def test_other_ansible_and_yaml_files_are_not_taken_for_cp_ansibles(tmp_path, name, text):
    assert not ansible.holds_settings(write(tmp_path, name, text))


def test_inventories_and_vars_files_are_found_by_place_and_content(tmp_path):
    assert ansible.holds_settings(write(tmp_path, "inventory.yml", HOSTS))
    assert ansible.holds_settings(write(tmp_path, "group_vars/all", "confluent_package_version: 7.6.0\n"))
    assert ansible.holds_settings(write(tmp_path, "host_vars/kafka-1.example.com",
                                        "kafka_broker_custom_properties: {}\n"))


def test_a_vars_file_linking_out_of_the_project_is_not_read(tmp_path):
    outside = write(tmp_path, "secret/all", "kafka_broker_custom_properties:\n  num.io.threads: 1\n")
    (tmp_path / "repo/group_vars").mkdir(parents=True)
    (tmp_path / "repo/group_vars/all").symlink_to(outside)
    assert not ansible.holds_settings(tmp_path / "repo/group_vars/all")


def test_lint_annotates_a_cliff_of_the_example_on_its_group_vars_line(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    brokers = repo / "inventories/production/group_vars/kafka_broker.yml"
    brokers.write_text(brokers.read_text().replace("  num.io.threads: 8\n",
                                                   "  num.io.threads: 8\n  log.flush.interval.messages: 1\n"))
    (repo / ".git").mkdir()
    done = run_kcliff("lint", str(repo), "--format", "github", cwd=repo)
    assert done.returncode == 1, done.stderr
    line = line_of(brokers, "log.flush.interval.messages")
    expected = (f"::error file=inventories/production/group_vars/kafka_broker.yml,line={line},"
                "title=kcliff flush-every-message%3A ")
    assert any(a.startswith(expected) for a in done.stdout.splitlines()), done.stdout


def test_the_example_lints_clean(tmp_path):
    done = run_kcliff("lint", str(EXAMPLE), "--verbose")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Kafka 4.1" in done.stdout + done.stderr


def test_values_are_read_as_ansibles_yaml_1_1_loader_reads_them(tmp_path):
    brokers = ("kafka_broker_custom_properties:\n  auto.create.topics.enable: no\n  num.io.threads: !!str 12\n"
               "  delete.topic.enable: 'yes'\n")
    root = _repo(tmp_path, {"hosts.yml": HOSTS, "group_vars/kafka_broker.yml": brokers})
    with pytest.raises(InputError, match="delete.topic.enable': expected true or false, got 'yes'"):
        _load(root)  # quoted, it is the text yes, which Kafka refuses as a boolean
    write(root, "group_vars/kafka_broker.yml", brokers.replace("  delete.topic.enable: 'yes'\n", ""))
    found = _entries(_load(root))
    assert found["kafka_broker.yml", "auto.create.topics.enable"][0] is False  # PyYAML's boolean, rendered False
    assert found["kafka_broker.yml", "num.io.threads"][0] == 12

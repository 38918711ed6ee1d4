"""Stand-ins for the third-party actions kcliff's workflows use, for the workflow tests under nektos/act.

Each action.yml beside this file declares the real action's inputs and outputs and calls
`standin.py <action>` with its inputs as JSON (STANDIN_INPUTS). Written for these tests from the
actions' documented contracts; no code of the real actions. What GitHub serves is stood in for by:

  KCLIFF_ACT_GITHUB   a directory of bare repositories, <owner>/<name>.git ("github.com")
  KCLIFF_ACT_PAGES    the directory the Pages site is deployed to (the Pages host)
  KCLIFF_ACT_RECORD   where each call is recorded, <action>.jsonl, and PR comments are kept
  ACTIONS_RUNTIME_URL act's artifact server (set by act), spoken to with its REST protocol

Every call appends {"job", "inputs", ...what it was handed} to its record, so tests can assert on it.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable


class Failed(Exception):
    """The action fails the step with this message, as the real one would."""


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise Failed(f"the workflow test harness did not set {name}")
    return value


def workspace() -> Path:
    return Path(env("GITHUB_WORKSPACE"))


def in_workspace(relative: str) -> Path:
    return (workspace() / relative).resolve() if relative else workspace()


def set_output(name: str, value: str) -> None:
    with open(env("GITHUB_OUTPUT"), "a") as out:
        out.write(f"{name}={value}\n")


def add_path(directory: Path) -> None:
    with open(env("GITHUB_PATH"), "a") as out:
        out.write(f"{directory}\n")


def set_env(name: str, value: str) -> None:
    with open(env("GITHUB_ENV"), "a") as out:
        out.write(f"{name}={value}\n")


def record(action: str, **facts: Any) -> None:
    directory = Path(env("KCLIFF_ACT_RECORD"))
    directory.mkdir(parents=True, exist_ok=True)
    entry = {"job": os.environ.get("GITHUB_JOB"), "run_id": os.environ.get("GITHUB_RUN_ID"), **facts}
    with open(directory / f"{action}.jsonl", "a") as out:
        out.write(json.dumps(entry) + "\n")


def git(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise Failed(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def bare_repository(full_name: str) -> Path:
    path = Path(env("KCLIFF_ACT_GITHUB")) / f"{full_name}.git"
    if not path.is_dir():
        raise Failed(f"Repository not found: {full_name}")
    return path


def flag(value: str) -> bool:
    return value.strip().lower() == "true"


# -- actions/checkout ----------------------------------------------------------------------------

def empty(directory: Path) -> None:
    for path in directory.iterdir():
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()


def checkout(inputs: dict[str, str]) -> None:
    repository = inputs["repository"] or env("GITHUB_REPOSITORY")
    source = bare_repository(repository)
    ref = inputs["ref"]
    if not ref:
        ref = os.environ["GITHUB_SHA"] if repository == env("GITHUB_REPOSITORY") else "HEAD"
    dest = in_workspace(inputs["path"])
    if dest.exists() and flag(inputs["clean"]):
        empty(dest)
    dest.mkdir(parents=True, exist_ok=True)
    git("init", "--quiet", str(dest))
    git("remote", "add", "origin", str(source), cwd=dest)
    try:
        git("fetch", "--quiet", "origin", ref, cwd=dest)
    except Failed as exc:
        raise Failed(f"A branch or tag with the name '{ref}' could not be found ({exc})") from None
    git("checkout", "--quiet", "--detach", "FETCH_HEAD", cwd=dest)
    if not ref.startswith("HEAD") and len(ref) != 40:
        git("checkout", "--quiet", "-B", ref.removeprefix("refs/heads/"), cwd=dest)
    if not flag(inputs["persist-credentials"]):
        # without persisted credentials GitHub refuses a push; so does this stand-in
        git("remote", "set-url", "--push", "origin", "https://github.invalid/no-credentials-persisted", cwd=dest)
    commit = git("rev-parse", "HEAD", cwd=dest)
    set_output("ref", ref)
    set_output("commit", commit)
    record("checkout", inputs={k: v for k, v in inputs.items() if k != "token"}, commit=commit)


# -- actions/setup-python, actions/setup-java ----------------------------------------------------

def setup_python(inputs: dict[str, str]) -> None:
    version = inputs["python-version"]
    python = shutil.which(f"python{version}") or shutil.which("python3")
    found = subprocess.run([python or "false", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                           capture_output=True, text=True).stdout.strip()
    if not python or not found.startswith(version):
        raise Failed(f"The version '{version}' with architecture 'x64' was not found for this machine")
    # a venv per job: a persistent runner's pip installs must not leak into the next job. Its pip is the
    # interpreter's own (pip installs into the venv all the same): seeding one took 8-12 s of every job.
    venv = Path(env("RUNNER_TEMP")) / f"python-{version}"
    subprocess.run([python, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    add_path(venv / "bin")
    set_env("pythonLocation", str(venv))
    set_output("python-version", found)
    set_output("python-path", str(venv / "bin" / "python"))
    set_output("cache-hit", "false")
    record("setup-python", inputs=inputs, version=found)


def setup_java(inputs: dict[str, str]) -> None:
    want = inputs["java-version"]
    if not inputs["distribution"]:
        raise Failed("Input required and not supplied: distribution")
    java = shutil.which("java")
    settings = subprocess.run([java or "false", "-XshowSettings:properties", "-version"],
                              capture_output=True, text=True).stderr
    props = dict(line.strip().partition(" = ")[::2] for line in settings.splitlines() if " = " in line)
    version = props.get("java.version", "")
    if not version.split(".")[0] == want.split(".")[0]:
        raise Failed(f"Could not find satisfied version for SemVer '{want}' (this machine has Java {version})")
    home = props["java.home"]
    set_env("JAVA_HOME", home)
    set_env(f"JAVA_HOME_{want}_X64", home)
    add_path(Path(home) / "bin")
    for name, value in (("distribution", inputs["distribution"]), ("version", version), ("path", home),
                        ("cache-hit", "false")):
        set_output(name, value)
    record("setup-java", inputs=inputs, version=version)


# -- artifacts: act's artifact server ------------------------------------------------------------

def _api(path: str) -> str:
    return env("ACTIONS_RUNTIME_URL").rstrip("/") + path


def _request(url: str, method: str = "GET", data: bytes | None = None, raw: bool = False) -> Any:
    """The API's JSON answer, or with `raw` a file's bytes as stored (a log line "[2026-..." is no JSON)."""
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Authorization": f"Bearer {os.environ.get('ACTIONS_RUNTIME_TOKEN', '')}",
                                              "Content-Type": "application/octet-stream" if data else "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        body = response.read()
    return body if raw or not body.strip().startswith((b"{", b"[")) else json.loads(body)


def artifact_names() -> list[str]:
    try:
        listing = _request(_api(f"/_apis/pipelines/workflows/{env('GITHUB_RUN_ID')}/artifacts"))
    except (urllib.error.URLError, ConnectionError):
        return []  # act's server fails the listing of a run that has no artifacts yet
    return sorted(item["name"] for item in listing.get("value") or [])


def put_artifact(name: str, files: dict[str, Path]) -> None:
    run_id = env("GITHUB_RUN_ID")
    container = _request(_api(f"/_apis/pipelines/workflows/{run_id}/artifacts?api-version=6.0-preview"), "POST",
                         json.dumps({"Type": "actions_storage", "Name": name}).encode())
    url = container["fileContainerResourceUrl"]
    for relative, path in sorted(files.items()):
        query = urllib.parse.urlencode({"itemPath": f"{name}/{relative}"})
        _request(f"{url}?{query}", "PUT", path.read_bytes() or b"")
    _request(_api(f"/_apis/pipelines/workflows/{run_id}/artifacts?artifactName={urllib.parse.quote(name)}"),
             "PATCH", json.dumps({"Size": sum(p.stat().st_size for p in files.values())}).encode())


def get_artifact(name: str, dest: Path) -> int:
    run_id = env("GITHUB_RUN_ID")
    listing = _request(_api(f"/download/{run_id}?{urllib.parse.urlencode({'itemPath': name})}"))
    count = 0
    for item in listing.get("value") or []:
        relative = item["path"].split("/", 1)[1]
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_request(item["contentLocation"], raw=True))
        count += 1
    return count


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def search(patterns: list[str], include_hidden: bool) -> dict[str, Path]:
    """upload-artifact's path rules: globs and !exclusions, relative to the workspace; files are named
    from the searched paths' least common ancestor; hidden files only with include-hidden-files."""
    base = workspace()
    includes = [p for p in patterns if not p.startswith("!")]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    found: set[Path] = set()
    roots = []
    for pattern in includes:
        matches = sorted(base.glob(pattern.rstrip("/"))) if any(c in pattern for c in "*?[") else [base / pattern]
        stem = pattern.split("*")[0].split("?")[0].split("[")[0]
        roots.append((base / stem).resolve() if stem else base)
        for match in matches:
            if match.is_dir():
                found.update(p for p in match.rglob("*") if p.is_file())
            elif match.is_file():
                found.add(match)
    kept = {p for p in found if include_hidden or not _hidden(p.relative_to(base))}
    kept = {p for p in kept if not any(fnmatch.fnmatch(str(p.relative_to(base)), e.rstrip("/") + "*")
                                       for e in excludes)}
    root_dirs = [r if r.is_dir() else r.parent for r in roots]
    root = Path(os.path.commonpath(root_dirs)) if root_dirs else base
    return {str(p.relative_to(root)): p for p in kept}


def upload_artifact(inputs: dict[str, str]) -> None:
    name = inputs["name"]
    patterns = [line.strip() for line in inputs["path"].splitlines() if line.strip()]
    if not patterns:
        raise Failed("Input required and not supplied: path")
    files = search(patterns, flag(inputs["include-hidden-files"]))
    if not files:
        message = f"No files were found with the provided path: {inputs['path'].strip()}. No artifacts will be uploaded."
        if inputs["if-no-files-found"] == "error":
            raise Failed(message)
        print(f"::{'warning' if inputs['if-no-files-found'] == 'warn' else 'notice'}::{message}")
        record("upload-artifact", inputs=inputs, files=[])
        return
    if name in artifact_names() and not flag(inputs["overwrite"]):
        raise Failed(f"Failed to CreateArtifact: an artifact with this name already exists on the workflow run: {name}")
    put_artifact(name, files)
    set_output("artifact-id", str(abs(hash(name)) % 10**9))
    set_output("artifact-url", f"{os.environ.get('GITHUB_SERVER_URL', '')}/artifacts/{name}")
    set_output("artifact-digest", "")
    record("upload-artifact", inputs=inputs, files=sorted(files))


def download_artifact(inputs: dict[str, str]) -> None:
    dest = in_workspace(inputs["path"])
    dest.mkdir(parents=True, exist_ok=True)
    available = artifact_names()
    if inputs["name"]:
        if inputs["name"] not in available:
            raise Failed(f"Unable to download artifact(s): Artifact not found for name: {inputs['name']}")
        get_artifact(inputs["name"], dest)
        chosen = [inputs["name"]]
    else:
        chosen = [n for n in available if fnmatch.fnmatch(n, inputs["pattern"] or "*")]
        for name in chosen:
            get_artifact(name, dest if flag(inputs["merge-multiple"]) else dest / name)
    set_output("download-path", str(dest))
    record("download-artifact", inputs=inputs, artifacts=chosen)


# -- Pages ---------------------------------------------------------------------------------------

def upload_pages_artifact(inputs: dict[str, str]) -> None:
    site = in_workspace(inputs["path"])
    if not site.is_dir():
        raise Failed(f"tar: {inputs['path']}: Cannot open: No such file or directory")
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "artifact.tar"
        with tarfile.open(archive, "w") as tar:
            for path in sorted(site.rglob("*")):
                relative = path.relative_to(site)
                if path.is_file() and relative.parts[0] not in (".git", ".github"):
                    tar.add(path, arcname=str(relative))
        put_artifact(inputs["name"], {"artifact.tar": archive})
    set_output("artifact_id", str(abs(hash(inputs["name"])) % 10**9))
    record("upload-pages-artifact", inputs=inputs)


def deploy_pages(inputs: dict[str, str]) -> None:
    host = Path(env("KCLIFF_ACT_PAGES"))
    with tempfile.TemporaryDirectory() as tmp:
        if inputs["artifact_name"] not in artifact_names():
            raise Failed(f"No artifacts named \"{inputs['artifact_name']}\" were found for this workflow run")
        get_artifact(inputs["artifact_name"], Path(tmp))
        shutil.rmtree(host, ignore_errors=True)
        host.mkdir(parents=True)
        with tarfile.open(Path(tmp) / "artifact.tar") as tar:
            tar.extractall(host, filter="data")
    url = host.as_uri() + "/"
    set_output("page_url", url)
    set_output("status", "succeed")
    record("deploy-pages", inputs={k: v for k, v in inputs.items() if k != "token"}, page_url=url)


# -- marocchino/sticky-pull-request-comment ------------------------------------------------------

def sticky_comment(inputs: dict[str, str]) -> None:
    event = json.loads(Path(env("GITHUB_EVENT_PATH")).read_text())
    number = inputs["number"] or str((event.get("pull_request") or {}).get("number") or "")
    if not number:
        raise Failed("no number specified and not a pull request event")
    body = Path(in_workspace(inputs["path"])).read_text() if inputs["path"] else inputs["message"]
    store = Path(env("KCLIFF_ACT_RECORD")) / "comments" / f"{number}-{inputs['header'] or 'default'}.md"
    store.parent.mkdir(parents=True, exist_ok=True)
    previous = store.read_text() if store.exists() else ""
    if flag(inputs["delete"]):
        store.unlink(missing_ok=True)
    else:
        store.write_text(previous + "\n" + body if flag(inputs["append"]) and previous else body)
    set_output("previous_comment_id", "1" if previous else "")
    set_output("created_comment_id", "" if previous else "1")
    record("sticky-pull-request-comment", inputs={k: v for k, v in inputs.items() if k != "GITHUB_TOKEN"},
           number=number, body=body)


# -- benchmark-action/github-action-benchmark (custom tools) -------------------------------------

CUSTOM_TOOLS = ("customBiggerIsBetter", "customSmallerIsBetter")


def read_custom_benches(path: Path) -> list[dict[str, Any]]:
    """The documented custom format: a JSON array of {name, unit, value: number, range?, extra?}."""
    try:
        benches = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise Failed(f"Cannot read benchmark output {path}: {exc}") from None
    if not isinstance(benches, list):
        raise Failed(f"{path}: the custom tool's output must be a JSON array")
    if not benches:  # as the action's extractResult
        raise Failed(f"No benchmark result was found in {path}. Benchmark output was '{path.read_text()}'")
    for bench in benches:
        ok = (isinstance(bench, dict) and isinstance(bench.get("name"), str) and isinstance(bench.get("unit"), str)
              and isinstance(bench.get("value"), (int, float)) and not isinstance(bench.get("value"), bool)
              and all(isinstance(bench.get(k, ""), str) for k in ("range", "extra")))
        if not ok:
            raise Failed(f"{path}: every entry needs name and unit (strings) and value (a number): {bench!r}")
    return benches


def benchmark(inputs: dict[str, str]) -> None:
    if inputs["tool"] not in CUSTOM_TOOLS:
        raise Failed(f"this stand-in knows the custom tools only, not {inputs['tool']!r}")
    output = in_workspace(inputs["output-file-path"])
    benches = read_custom_benches(output)
    if not flag(inputs["auto-push"]):
        raise Failed("this stand-in supports auto-push: true only")
    if not inputs["github-token"] and not os.environ.get("ACT"):
        raise Failed("'github-token' input must be set to push to the GitHub Pages branch")
    repository = inputs["gh-repository"].removeprefix("github.com/") or env("GITHUB_REPOSITORY")
    with tempfile.TemporaryDirectory() as tmp:
        pages = Path(tmp) / "pages"
        try:
            git("clone", "--quiet", "--branch", inputs["gh-pages-branch"], str(bare_repository(repository)), str(pages))
        except Failed as exc:
            raise Failed(f"Command 'git' failed: fetching {inputs['gh-pages-branch']}: {exc}") from None
        data_dir = pages / inputs["benchmark-data-dir-path"]
        data_dir.mkdir(parents=True, exist_ok=True)
        data = _read_data_js(data_dir / "data.js")
        entries = data["entries"].setdefault(inputs["name"], [])
        previous = entries[-1] if entries else None
        entries.append({"commit": {"id": os.environ.get("GITHUB_SHA", ""), "url": ""}, "date": int(time.time() * 1000),
                        "tool": inputs["tool"], "benches": benches})
        if inputs["max-items-in-chart"]:
            del entries[:-int(inputs["max-items-in-chart"])]
        data["lastUpdate"] = int(time.time() * 1000)
        (data_dir / "data.js").write_text("window.BENCHMARK_DATA = " + json.dumps(data, indent=2) + "\n")
        index = data_dir / "index.html"
        if not index.exists():
            index.write_text("<!doctype html><title>benchmark trends</title>"
                             "<script src=\"data.js\"></script><p>Trend charts of window.BENCHMARK_DATA</p>\n")
        git("add", "-A", cwd=pages)
        git("-c", "user.name=github-action-benchmark", "-c", "user.email=bench@localhost", "commit", "--quiet",
            "-m", f"add {inputs['name']} benchmark result for {os.environ.get('GITHUB_SHA', '')}", cwd=pages)
        git("push", "--quiet", "origin", f"HEAD:{inputs['gh-pages-branch']}", cwd=pages)
    _alert(inputs, previous, benches)
    record("github-action-benchmark", inputs={k: v for k, v in inputs.items() if k != "github-token"},
           handed=benches)


def _read_data_js(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {"lastUpdate": 0, "repoUrl": "", "entries": {}}
    text = path.read_text().strip().removeprefix("window.BENCHMARK_DATA =").strip().rstrip(";")
    return json.loads(text)


def _alert(inputs: dict[str, str], previous: dict[str, Any] | None, benches: list[dict[str, Any]]) -> None:
    if not previous:
        return
    threshold = float(inputs["alert-threshold"].rstrip("%")) / 100
    before = {b["name"]: b["value"] for b in previous["benches"]}
    bigger = inputs["tool"] == "customBiggerIsBetter"
    for bench in benches:
        old = before.get(bench["name"])
        if not old or not bench["value"]:
            continue
        ratio = old / bench["value"] if bigger else bench["value"] / old
        if ratio > threshold:
            print(f"::warning::Performance alert! {bench['name']} is {ratio:.2f}x worse than the previous result")
            if flag(inputs["fail-on-alert"]):
                raise Failed(f"Performance alert on {bench['name']}: {ratio:.2f}x over the threshold")


ACTIONS: dict[str, Callable[[dict[str, str]], None]] = {
    "checkout": checkout, "setup-python": setup_python, "setup-java": setup_java,
    "upload-artifact": upload_artifact, "download-artifact": download_artifact,
    "upload-pages-artifact": upload_pages_artifact, "deploy-pages": deploy_pages,
    "sticky-pull-request-comment": sticky_comment, "github-action-benchmark": benchmark,
}


def main() -> int:
    action = sys.argv[1]
    inputs = json.loads(os.environ["STANDIN_INPUTS"])
    try:
        ACTIONS[action](inputs)
    except Failed as exc:
        print(f"::error::{exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

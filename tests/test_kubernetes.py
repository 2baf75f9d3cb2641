"""deploy/kubernetes/, checked offline (docs/kubernetes.md): every plain manifest against Kubernetes' own schemas
(``kubernetes-validate``'s, for one pinned release), each chart's values merged over the chart's defaults against
the chart's own values schema (copied into tests/kubernetes/: there is no helm here), the sandbox's node profile
against what the sandbox calls, and the Dockerfile against the Makefile, pyproject.toml and the charts' versions.
Each check is shown to refuse a broken copy of what it checks."""

import copy
import json
import re
import tomllib

import jsonschema
import kubernetes_validate
import pyseccomp
import pytest
import yaml
from packaging.specifiers import SpecifierSet
from traitlets.config import Config

from conftest import ROOT
from reading_maths.sandbox import syscall_filter

KUBERNETES = "1.35.0"
"""The release the manifests are checked against: the first whose Pod Security baseline admits the sandbox's pods
(namespace.yaml)."""
DEPLOY = ROOT / "deploy" / "kubernetes"
CHARTS = ROOT / "tests" / "kubernetes"
MANIFESTS = ("namespace.yaml", "course-volume.yaml", "database-secret.yaml", "checks-service.yaml",
             "exchange-service.yaml", "network-policies.yaml")
VALUES = {"config.yaml": "jupyterhub-4.4.0", "dask-gateway.yaml": "dask-gateway-2026.3.0"}
"""Each values file and the chart (tests/kubernetes/) it is for."""
BUBBLEWRAP = ("clone", "unshare", "mount", "umount2", "pivot_root", "capset", "prctl", "seccomp")
"""The system calls bubblewrap and the fork server make a sandbox with, which the node's profile must leave them."""
TEST_ONLY_PACKAGES = {"chromium", "postgresql"}
"""The Makefile's Debian packages that only tests need, not a server: the browser tests' browser, and the
PostgreSQL server the database tests start (a cluster has its own)."""
SCMP_ERROR = -1
"""What libseccomp answers for a system call name it does not know (``__NR_SCMP_ERROR``)."""


def documents(name: str) -> list[dict]:
    return [d for d in yaml.safe_load_all((DEPLOY / name).read_text()) if d]


def helm_merged(defaults, values):
    """``values`` over a chart's ``defaults`` as helm merges them: maps key by key, a null deletes the key."""
    if not (isinstance(defaults, dict) and isinstance(values, dict)):
        return copy.deepcopy(values)
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = helm_merged(merged.get(key), value)
    return merged


def schema_errors(chart: str, values: dict) -> list[str]:
    """What the chart's own values schema finds wrong with ``values`` once merged over the chart's defaults."""
    schema = yaml.safe_load((CHARTS / chart / "values.schema.yaml").read_text())
    defaults = yaml.safe_load((CHARTS / chart / "values.yaml").read_text())
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(helm_merged(defaults, values))]


def manifest_errors(document: dict) -> list[str]:
    try:
        kubernetes_validate.validate(document, KUBERNETES, strict=True)
    except kubernetes_validate.ValidationError as error:
        return [f"{'.'.join(map(str, error.path))}: {error.message}"]
    return []


@pytest.mark.parametrize("name", MANIFESTS)
def test_every_manifest_is_valid_kubernetes(name):
    found = documents(name)
    assert found
    for document in found:
        assert manifest_errors(document) == [], f"{name}: {document['kind']} {document['metadata']['name']}"


def test_every_yaml_file_of_the_folder_is_checked():
    assert {p.name for p in DEPLOY.glob("*.yaml")} == set(MANIFESTS) | set(VALUES)


@pytest.mark.parametrize("name", VALUES)
def test_values_pass_the_charts_own_schema(name):
    assert schema_errors(VALUES[name], documents(name)[0]) == []


def hub_extra_config() -> dict:
    """What the Python in config.yaml's hub.extraConfig defines, run as JupyterHub runs it: on a traitlets
    configuration ``c``."""
    names = {"c": Config()}
    for code in documents("config.yaml")[0]["hub"]["extraConfig"].values():
        exec(compile(code, "hub.extraConfig", "exec"), names)  # noqa: S102 - the course's own configuration
    return names


def chart_pods() -> dict[str, dict]:
    """The pods the two charts make from the parts of the values they pass through unchecked (KubeSpawner's
    security contexts, the servers' and workers' extra pod and container settings), as bare Pod manifests."""
    values, gateway = documents("config.yaml")[0], documents("dask-gateway.yaml")[0]
    image = values["singleuser"]["image"]
    server = {"name": "notebook", "image": f"{image['name']}:{image['tag']}",
              "securityContext": values["hub"]["config"]["KubeSpawner"]["container_security_context"],
              "env": [{"name": k, "value": v} for k, v in values["singleuser"]["extraEnv"].items()]}
    instructor = server | {"securityContext": hub_extra_config()["SANDBOXED"]}
    worker = gateway["gateway"]["backend"]["worker"]
    return {name: {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                   "spec": {**extra, "containers": [container]}}
            for name, extra, container in (
                ("server", values["singleuser"]["extraPodConfig"], server),
                ("instructor", values["singleuser"]["extraPodConfig"], instructor),
                ("worker", worker["extraPodConfig"], {"name": "dask-worker", "image": server["image"],
                                                      **worker["extraContainerConfig"]}))}


@pytest.mark.parametrize("name", ["server", "instructor", "worker"])
def test_the_pods_the_charts_make_are_valid_kubernetes(name):
    assert manifest_errors(chart_pods()[name]) == []


def broken(document: dict, path: str, value) -> dict:
    """A copy of ``document`` with the key at the dotted ``path`` set to ``value``."""
    document = copy.deepcopy(document)
    *parents, last = path.split(".")
    target = document
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    target[last] = value
    return document


def test_a_broken_manifest_is_refused():
    deployment = documents("checks-service.yaml")[0]
    assert manifest_errors(broken(deployment, "spec.template.spec.hostUser", False))  # a misspelled field
    assert manifest_errors(broken(deployment, "spec.replicas", "one"))
    policy = documents("network-policies.yaml")[0]
    assert manifest_errors(broken(policy, "spec.ingress.0.ports.0.port", [8000]))
    server = chart_pods()["server"]
    assert manifest_errors(broken(server, "spec.containers.0.securityContext.seccompProfile.type", 1))
    assert manifest_errors(broken(server, "spec.containers.0.securityContext.procMounts", "Unmasked"))


@pytest.mark.parametrize("name, path, value", [
    ("config.yaml", "singleuser.networkPolicy.egressAllowRules.privateIPs", "no"),
    ("config.yaml", "singleuser.networkPolicy.egressAllowRule", {}),
    ("config.yaml", "hub.config.kubeSpawner", {}),  # a section that is not a class name
    ("dask-gateway.yaml", "gateway.backend.worker.threads", "one"),
    ("dask-gateway.yaml", "gateway.backend.environment.OPENBLAS_NUM_THREADS", 1),
])
def test_a_broken_value_is_refused(name, path, value):
    assert schema_errors(VALUES[name], broken(documents(name)[0], path, value))


def test_the_hubs_extra_configuration_sets_the_instructors_hook():
    assert callable(hub_extra_config()["c"].KubeSpawner.pre_spawn_hook)


def service_parts(name: str) -> tuple[dict, dict]:
    """The container of a service's Deployment in ``name``, and its Service."""
    found = {d["kind"]: d for d in documents(name)}
    return found["Deployment"]["spec"]["template"]["spec"]["containers"][0], found["Service"]


@pytest.mark.parametrize("name", ["checks-service.yaml", "exchange-service.yaml"])
def test_each_hub_service_is_registered_where_it_runs(name):
    """The hub sends the service's prefix to its Service, it holds the token the chart made for it, and every
    server is given its address."""
    values = documents("config.yaml")[0]
    container, service = service_parts(name)
    image = values["singleuser"]["image"]
    assert container["image"] == f"{image['name']}:{image['tag']}"
    env = {e["name"]: e.get("value") or e["valueFrom"]["secretKeyRef"]["key"] for e in container["env"]}
    registered = env["JUPYTERHUB_SERVICE_NAME"]
    assert env["JUPYTERHUB_API_TOKEN"] == f"hub.services.{registered}.apiToken"
    address = f"http://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}"
    assert values["hub"]["services"][registered]["url"] == address
    assert f"{address}{env['JUPYTERHUB_SERVICE_PREFIX']}" in values["singleuser"]["extraEnv"].values()
    assert f"access:services!service={registered}" in values["hub"]["loadRoles"]["user"]["scopes"]


def test_every_pod_that_runs_student_code_is_sandboxed_alike():
    """The instructor's server, the checks service and a grading worker: one image, one security context; a
    student's server runs no sandbox and keeps the runtime's defaults; every pod in a user namespace of its own."""
    values, gateway = documents("config.yaml")[0], documents("dask-gateway.yaml")[0]
    worker = gateway["gateway"]["backend"]["worker"]
    checks = next(d for d in documents("checks-service.yaml") if d["kind"] == "Deployment")["spec"]["template"]
    sandboxed = hub_extra_config()["SANDBOXED"]
    assert sandboxed["procMount"] == "Unmasked" and sandboxed["seccompProfile"]["type"] == "Localhost"
    assert checks["spec"]["containers"][0]["securityContext"] == sandboxed
    assert worker["extraContainerConfig"]["securityContext"] == sandboxed
    student = values["hub"]["config"]["KubeSpawner"]["container_security_context"]
    assert "procMount" not in student and student["seccompProfile"] == {"type": "RuntimeDefault"}
    assert {k: v for k, v in sandboxed.items() if k not in ("procMount", "seccompProfile", "appArmorProfile")} == \
        {k: v for k, v in student.items() if k != "seccompProfile"}
    assert gateway["gateway"]["backend"]["image"] == values["singleuser"]["image"]
    for pod in (checks["spec"], values["singleuser"]["extraPodConfig"], worker["extraPodConfig"]):
        assert pod["hostUsers"] is False


def test_the_volume_the_secret_and_the_namespace_are_used_by_their_names():
    """The course volume, the passwords and the instructor's label, named alike where they are made and where
    they are used (the hook in config.yaml included), and every manifest in the course's namespace."""
    namespace = documents("namespace.yaml")[0]["metadata"]["name"]
    claim = documents("course-volume.yaml")[0]["metadata"]["name"]
    secret = documents("database-secret.yaml")[0]
    hook = "".join(documents("config.yaml")[0]["hub"]["extraConfig"].values())
    assert f'"claimName": "{claim}"' in hook and f'"secretName": "{secret["metadata"]["name"]}"' in hook
    instructor = next(d for d in documents("network-policies.yaml") if d["metadata"]["name"].endswith("instructor"))
    (label, value), = {k: v for k, v in instructor["spec"]["podSelector"]["matchLabels"].items()
                       if k != "component"}.items()
    assert f'"{label}": "{value}"' in hook
    worker = documents("dask-gateway.yaml")[0]["gateway"]["backend"]["worker"]["extraPodConfig"]
    pods = [worker] + [d["spec"]["template"]["spec"] for name in ("checks-service.yaml", "exchange-service.yaml")
                       for d in documents(name) if d["kind"] == "Deployment"]
    for pod in pods:
        volumes = {v["name"]: v for v in pod["volumes"]}
        assert volumes["course"]["persistentVolumeClaim"] == {"claimName": claim, "readOnly": True}
        assert pod is worker or volumes["database"]["secret"]["secretName"] == secret["metadata"]["name"]
    for container in (service_parts(name)[0] for name in ("checks-service.yaml", "exchange-service.yaml")):
        passwords = next(e["value"] for e in container["env"] if e["name"] == "PGPASSFILE")
        assert passwords.rsplit("/", 1)[1] in secret["stringData"]
    for name in MANIFESTS[1:]:
        assert {d["metadata"]["namespace"] for d in documents(name)} == {namespace}


def node_profile_refuses() -> set[str]:
    profile = json.loads((DEPLOY / "node" / "reading-maths-sandbox.json").read_text())
    assert profile["defaultAction"] == "SCMP_ACT_ALLOW"
    return {name for rule in profile["syscalls"] if rule["action"] != "SCMP_ACT_ALLOW" for name in rule["names"]}


def test_the_node_profile_leaves_the_sandbox_what_it_needs():
    refused = node_profile_refuses()
    unknown = {name for name in refused if pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) == SCMP_ERROR}
    assert not unknown, "names libseccomp does not know"
    needed = set(BUBBLEWRAP) | set(syscall_filter.FORK_SERVER_ONLY)
    assert not refused & needed
    assert {"io_uring_setup", "userfaultfd", "bpf", "perf_event_open", "kexec_load"} <= refused


def dockerfile_stages() -> list[str]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    return re.split(r"^FROM ", text, flags=re.M)[1:]


def apt_packages(stage: str) -> set[str]:
    found = set()
    for line in re.findall(r"apt-get install (.*?)(?:&&|$)", stage, flags=re.M):
        found |= {word for word in line.split() if not word.startswith("-")}
    return found


def makefile_packages() -> set[str]:
    return set(re.findall(r'missing="\$\$missing ([\w.+-]+)"', (ROOT / "Makefile").read_text()))


def test_the_image_installs_the_makefiles_packages_and_no_other():
    build, image = dockerfile_stages()
    listed = makefile_packages()
    assert {"bubblewrap", "libseccomp2", "python3-venv"} <= listed
    installed = apt_packages(build) | apt_packages(image)
    assert installed <= listed and listed - installed <= TEST_ONLY_PACKAGES
    assert {"bubblewrap", "libseccomp2", "python3-venv"} <= apt_packages(image)  # what a server runs on


def test_the_image_is_the_projects_own_install_with_the_charts_versions():
    text = (DEPLOY / "Dockerfile").read_text()
    assert not re.search(r"\b(curl|wget)\b|^ADD ", text, flags=re.M), "nothing downloaded but packages"
    assert "COPY . /opt/reading-maths/src" in text
    pip = re.search(r"pip install --no-cache-dir (.*)", text).group(1).split()
    charts = {chart.split("-")[0]: yaml.safe_load((CHARTS / chart / "Chart.yaml").read_text())["appVersion"]
              for chart in VALUES.values()}
    assert pip == ["/opt/reading-maths/src", f"jupyterhub=={charts['jupyterhub']}",
                   f"dask-gateway=={charts['dask']}"]
    assert all(stage.startswith("debian:bookworm") for stage in dockerfile_stages())
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert "3.11" in SpecifierSet(requires), "bookworm's python3 is 3.11"


def test_the_image_leaves_the_hidden_graders_out():
    """Every student's server runs the image: only the package and the hub's files go in."""
    lines = [line for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
             if line and not line.startswith("#")]
    assert lines[0] == "*"
    taken = {line[1:] for line in lines if line.startswith("!")}
    assert taken == {"pyproject.toml", "README.md", "reading_maths", "hub"}

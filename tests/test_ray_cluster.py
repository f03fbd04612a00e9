"""Ray across two nodes (marked ``slow``: a cluster of two nodes starts
here, half a minute to minutes on 2 shared cores): ``ray.cluster_utils.Cluster``
runs a head and a second node on this machine, with Ray's token
authentication on as on a real cluster (docs/cluster/README.md);
``trappola evaluate --backend ray --address`` prints exactly the local
numbers, and a short RLlib run joined with ``address=`` has its env runners
sample on both nodes. The RLlib helpers are ``ray_helpers``'s.
"""

import json
import secrets

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from ray_helpers import FAST_RULE, tiny, work_by_node  # noqa: E402

from trappola.cli.main import main  # noqa: E402
from trappola.train.rllib.selfplay import train  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_nodes():
    from ray._private.authentication_test_utils import reset_auth_token_state
    from ray._raylet import AuthenticationMode, get_authentication_mode
    from ray.cluster_utils import Cluster

    with pytest.MonkeyPatch.context() as env:
        # Ray's token authentication, as a real cluster runs it (docs/cluster/README.md): every node and driver
        # holds the token. This process read its auth mode when it imported ray: read it again.
        env.setenv("RAY_AUTH_MODE", "token")
        env.setenv("RAY_AUTH_TOKEN", secrets.token_hex(16))
        # A node's agents start slowly on a loaded machine; its raylet waits for them this long (default 10 s).
        env.setenv("RAY_agent_register_timeout_ms", "120000")
        reset_auth_token_state()
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        try:
            cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes()
            assert get_authentication_mode() == AuthenticationMode.TOKEN
            yield cluster
        finally:
            cluster.shutdown()
    reset_auth_token_state()


def test_evaluate_on_two_nodes_prints_the_local_numbers(two_nodes, tmp_path):
    args = ["evaluate", "--players", f"{FAST_RULE},random", "--deals", "16", "--duplicate", "--seed", "3"]
    assert main(args + ["--workers", "1", "--json", str(tmp_path / "local.json")]) == 0
    assert main(args + ["--backend", "ray", "--address", two_nodes.address, "--json", str(tmp_path / "ray.json")]) == 0
    assert json.loads((tmp_path / "local.json").read_text()) == json.loads((tmp_path / "ray.json").read_text())
    assert not ray.is_initialized()  # the command left the cluster


def test_rllib_run_joined_with_address_samples_on_both_nodes(two_nodes, tmp_path):
    reports = []
    cfg = tiny(tmp_path, address=two_nodes.address, num_env_runners=2)
    summary = train(cfg, log=lambda line: None, callbacks=[lambda algo, steps: reports.append(work_by_node(algo))])
    nodes = {node.node_id for node in two_nodes.list_all_nodes()}
    assert len(nodes) == 2
    final = dict(reports[-1])
    assert set(final) == nodes  # one env runner on each node ...
    assert all(decisions > 0 for decisions in final.values())  # ... and both played
    assert summary["timesteps"] >= 800 and (tmp_path / "tiny" / "final.zip").is_file()

"""The address ``autograde --scheduler`` takes: a scheduler's, or a Dask Gateway's URL naming the cluster to join
or the workers to start, and the cluster's options; a malformed one is refused before anything is contacted."""

from __future__ import annotations

import pytest

from reading_maths.grading.remote import ClusterUnavailable, GatewayRequest, gateway_request


@pytest.mark.parametrize("address", ["tcp://10.0.0.1:8786", "tls://scheduler:8786", "inproc://10.0.0.1/1/2"])
def test_a_scheduler_address_is_no_gateway(address):
    assert gateway_request(address) is None


def test_a_gateway_address_starts_a_cluster_with_its_options():
    request = gateway_request("https://hub.example.edu/services/dask-gateway?workers=8&worker_memory=4.5&image=c:2")
    assert request == GatewayRequest("https://hub.example.edu/services/dask-gateway", None, 8,
                                     {"worker_memory": 4.5, "image": "c:2"})


def test_a_gateway_address_joins_a_cluster():
    assert gateway_request("http://127.0.0.1:8000?cluster=abc.123") == \
           GatewayRequest("http://127.0.0.1:8000", "abc.123", None, {})
    assert gateway_request("http://127.0.0.1:8000/?cluster=abc.123&workers=3").workers == 3


@pytest.mark.parametrize(("address", "said"), [
    ("https://gateway.example.edu", "say how many workers to start"),
    ("https://gateway.example.edu?workers=0", "workers=0 in the address: a number of workers"),
    ("https://gateway.example.edu?workers=two", "workers=two in the address"),
    ("https://gateway.example.edu?workers=2&workers=3", "workers is given twice"),
    ("https://gateway.example.edu?cluster=abc&worker_memory=4", "worker_memory: cluster options are for a new"),
    ("https://ada:secret@gateway.example.edu?workers=2", "credentials go in dask-gateway's configuration"),
])
def test_a_malformed_gateway_address_says_what_to_write(address, said):
    with pytest.raises(ClusterUnavailable, match=said) as refused:
        gateway_request(address)
    assert "secret" not in str(refused.value)

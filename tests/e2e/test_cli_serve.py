"""`threadline serve` beyond loopback without API keys warns before it binds."""

from __future__ import annotations


def test_serving_beyond_loopback_with_no_keys_warns(tmp_path):
    import socket

    from support.server import run_cli

    with socket.socket() as taken:  # uvicorn fails to bind right after the warning
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        result = run_cli(tmp_path, "serve", "--host", "0.0.0.0", "--port", port, timeout=120)
    assert "serving on 0.0.0.0 with no API keys" in result.stdout, result.stdout

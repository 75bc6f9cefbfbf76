"""The live app's websocket fixtures, shared: a real socket under uvicorn as a signed-in user,
and the database connections of asgiref's threads closed after each test."""

from tests.live.conftest import _close_thread_connections, ws_connect

__all__ = ["_close_thread_connections", "ws_connect"]

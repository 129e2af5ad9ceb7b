"""The vaultgraph server as the bench runs it: `create_app(Settings())` under uvicorn, in its own process.

Settings come from the environment the bench sets (see processes.vaultgraph_server); the uvicorn options and the
collector's thresholds (app.tune_collector) are `vaultgraph serve`'s, without the access log (one line per request
would be measured too).
"""

from __future__ import annotations

import uvicorn

from vaultgraph.app import create_app, tune_collector, uvicorn_options
from vaultgraph.config import Settings
from vaultgraph.logs import configure_logging


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    app = create_app(settings)
    tune_collector()
    uvicorn.run(app, host=settings.host, port=settings.port, log_config=None, access_log=False,
                **uvicorn_options(settings))


if __name__ == "__main__":
    main()

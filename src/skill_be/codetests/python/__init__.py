"""The Python side of code tests, shipped to the sandboxes as it is: the runner (`runner.py`: the tests
under pytest and their verdicts), the answer's own process (`host.py`), and the channel between them
(`wire.py` framing, `codec.py` values, `proxy.py` and `endpoint.py`). These modules use the standard
library (and the runner pytest) only, and import each other relatively, so that the same files run
from skill-be's package and from the harness folder a sandbox is given. skill-be itself never imports
`runner.py` or `host.py`: it starts them (see `codetests/python_env.py`)."""
